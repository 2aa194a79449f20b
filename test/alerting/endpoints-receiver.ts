import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Arrivals } from '@platform/testing';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** Which of the trusted secrets verified the signature (Standard Webhooks `verify`). */
  verifiedBy: string[];
  /** What the receiver answered. */
  status: number;
}

interface Answer {
  status: number;
  location?: string;
  /** Default "ok" below 300, else "answer <status>". */
  body?: string;
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every request with `Webhook.verify` against
 * the secrets it trusts (answering 401 when none verifies), records what it got, and answers
 * from a script of statuses (then 200).
 */
export class WebhookReceiver {
  readonly received = new Arrivals<ReceivedWebhook>('webhook');
  /** Secrets a signature may verify with. */
  secrets: string[] = [];
  /** Off when the test moves the clock far from real time (verify checks the timestamp). */
  verifying = true;
  private script: Answer[] = [];

  private readonly server: Server;
  private baseUrl = '';

  private constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.server.address() as AddressInfo;
    receiver.baseUrl = `http://127.0.0.1:${port}`;
    return receiver;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verifiedBy = this.secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      const rejected = this.verifying && verifiedBy.length === 0;
      const answer: Answer = rejected ? { status: 401 } : (this.script.shift() ?? { status: 200 });
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // Recorded as received; the test asserts on it.
      }
      this.received.push({
        path: req.url ?? '',
        headers: req.headers,
        body,
        json,
        verifiedBy,
        status: answer.status,
      });
      res.writeHead(answer.status, {
        'content-type': 'text/plain',
        ...(answer.location ? { location: answer.location } : {}),
      });
      res.end(answer.body ?? (answer.status < 300 ? 'ok' : `answer ${answer.status}`));
    });
  }

  /** The URL of a hook path on this receiver. */
  url(path = '/hooks/alerts'): string {
    return `${this.baseUrl}${path}`;
  }

  /** The next requests are answered with these statuses, in order. */
  answer(...answers: Array<number | Answer>): void {
    this.script.push(...answers.map((a) => (typeof a === 'number' ? { status: a } : a)));
  }

  /** Every request carrying this `webhook-id`, in arrival order. */
  byId(id: string): ReceivedWebhook[] {
    return this.received.items.filter((r) => r.headers['webhook-id'] === id);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
