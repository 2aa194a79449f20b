import { Arrivals, containsAll } from './arrivals.js';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string | null;
  /** The Message-ID header, angle brackets included ('' when absent). */
  messageId: string;
  headers: Map<string, unknown>;
}

/** A real SMTP server on a free local port that keeps every message it accepts. */
export class SmtpSink {
  private readonly arrivals = new Arrivals<ReceivedMail>('e-mail');

  /** Everything received, in arrival order. */
  get messages(): ReceivedMail[] {
    return this.arrivals.items;
  }

  /** Recipients the server refuses with a permanent 550, as a broken mailbox would. */
  readonly refusedRecipients = new Set<string>();

  /**
   * Recipients the server refuses with a temporary 451 ("try again later") the next n times
   * they are named, as a greylisting or overloaded server would.
   */
  readonly deferredRecipients = new Map<string, number>();

  /** Connection errors the server saw (clients gone mid-session); the server keeps serving. */
  readonly connectionErrors: Error[] = [];

  /**
   * While true, a message is recorded as soon as it arrives but the server keeps its reply
   * to DATA back, so the client cannot know it was delivered (see `releaseReplies`).
   */
  holdReplies = false;
  private heldReplies: Array<() => void> = [];

  /** Answers every held message and stops holding. */
  releaseReplies(): void {
    this.holdReplies = false;
    const held = this.heldReplies;
    this.heldReplies = [];
    for (const reply of held) reply();
  }

  private constructor(private readonly server: SMTPServer) {}

  static async start(): Promise<SmtpSink> {
    // eslint-disable-next-line prefer-const -- assigned once the server it closes over exists
    let sink: SmtpSink | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(address, _session, callback) {
        if (sink!.refusedRecipients.has(address.address.toLowerCase())) {
          const error = new Error('mailbox unavailable') as Error & { responseCode: number };
          error.responseCode = 550;
          callback(error);
          return;
        }
        const recipient = address.address.toLowerCase();
        const deferrals = sink!.deferredRecipients.get(recipient) ?? 0;
        if (deferrals > 0) {
          sink!.deferredRecipients.set(recipient, deferrals - 1);
          const error = new Error('try again later') as Error & { responseCode: number };
          error.responseCode = 451;
          callback(error);
          return;
        }
        callback();
      },
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            sink!.arrivals.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : null,
              messageId: parsed.messageId ?? '',
              headers: parsed.headers,
            });
            if (sink!.holdReplies) sink!.heldReplies.push(() => callback());
            else callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
    sink = new SmtpSink(server);
    // A client that vanishes mid-session (a worker killed while sending) resets its connection;
    // a mail server notes that and serves the others, as this one does.
    server.on('error', (error: Error) => sink!.connectionErrors.push(error));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return sink;
  }

  get port(): number {
    return (this.server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /**
   * The inbox of `address`: `expectMail` waits for the next message to it whose subject or text
   * contains every fragment, and takes it.
   */
  mailbox(address: string): Mailbox {
    return new Mailbox(this.arrivals, address);
  }

  /** Fails, listing them, when messages arrived that no mailbox expectation took. */
  expectNoUnexpected(): void {
    const unexpected = this.arrivals.untaken();
    if (unexpected.length > 0)
      throw new Error(
        `unexpected ${unexpected.length} e-mail(s): ${unexpected
          .map((m) => `to ${m.to.join(', ')}: ${m.subject}`)
          .join('; ')}`,
      );
  }

  /** Resolves with the first e-mail (already received or arriving) that matches. */
  waitFor(predicate?: (item: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail> {
    return this.arrivals.waitFor(predicate, timeoutMs);
  }

  clear(): void {
    this.arrivals.clear();
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One address's view of the sink: what arrives for it. */
export class Mailbox {
  constructor(
    private readonly arrivals: Arrivals<ReceivedMail>,
    readonly address: string,
  ) {}

  /** The next message to this address whose subject or text contains every fragment. */
  expectMail(...fragments: Array<string | RegExp>): Promise<ReceivedMail> {
    const address = this.address.toLowerCase();
    return this.arrivals.take(
      (m) =>
        m.to.some((to) => to.toLowerCase() === address) &&
        containsAll(`${m.subject}\n${m.text}`, fragments),
    );
  }
}
