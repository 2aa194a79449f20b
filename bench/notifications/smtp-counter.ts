import { Worker } from 'node:worker_threads';
import { ArrivalLog } from './arrival-log.js';

/** A message accepted: when (epoch ms at the end of DATA), to whom, and its Subject. */
export interface MailArrival {
  at: number;
  to: string[];
  subject: string;
}

/** A message as received, kept only while capturing. */
export interface CapturedMail {
  to: string[];
  raw: string;
}

/**
 * An SMTP server (in a worker thread) that accepts everything and only counts messages and
 * their distinct recipients: bodies are drained, never parsed. Reported every 20 ms. While
 * `capture(true)`, messages are also kept whole (for set-ups that read tokens from e-mails).
 * Started with `{ arrivals: true }`, every message's acceptance time, recipients and Subject
 * are kept in `arrivals` (reported in the same batches).
 */
export class SmtpCounter {
  count = 0;
  recipients = 0;
  readonly captured: CapturedMail[] = [];
  /** Every message accepted, in order (only when started with `{ arrivals: true }`). */
  readonly arrivals = new ArrivalLog<MailArrival>();
  private target = Infinity;
  private reached: (() => void) | null = null;
  private capturedWaiters: Array<() => void> = [];

  private constructor(
    private readonly worker: Worker,
    readonly port: number,
  ) {
    worker.on(
      'message',
      (message: {
        count?: number;
        recipients?: number;
        mail?: CapturedMail;
        arrivals?: Array<[number, string[], string]>;
      }) => {
        if (message.mail) {
          this.captured.push(message.mail);
          const waiters = this.capturedWaiters;
          this.capturedWaiters = [];
          for (const wake of waiters) wake();
        }
        if (typeof message.count !== 'number') return;
        this.count = message.count;
        this.recipients = message.recipients ?? 0;
        if (message.arrivals)
          this.arrivals.add(message.arrivals.map(([at, to, subject]) => ({ at, to, subject })));
        this.check();
      },
    );
  }

  static async start(options: { arrivals?: boolean } = {}): Promise<SmtpCounter> {
    const worker = new Worker(new URL('./smtp-counter-thread.js', import.meta.url), {
      workerData: { arrivals: options.arrivals === true },
    });
    const port = await new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', (message: { port: number }) => resolve(message.port));
    });
    return new SmtpCounter(worker, port);
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Resolves once `total` messages have been received. */
  waitFor(total: number): Promise<void> {
    this.target = total;
    return new Promise((resolve) => {
      this.reached = resolve;
      this.check();
    });
  }

  /** Keeps (true) or stops keeping (false) the messages that arrive from now on. */
  capture(on: boolean): void {
    this.worker.postMessage({ capture: on });
  }

  /** The first captured message matching, waiting up to `timeoutMs` for it. */
  async waitForMail(
    predicate: (mail: CapturedMail) => boolean,
    timeoutMs = 30_000,
  ): Promise<CapturedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.captured.find(predicate);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no matching e-mail arrived');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.capturedWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private check(): void {
    if (this.count >= this.target && this.reached) {
      const reached = this.reached;
      this.reached = null;
      reached();
    }
  }
}
