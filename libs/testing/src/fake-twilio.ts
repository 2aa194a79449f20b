import { Arrivals } from './arrivals.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake accepted: an SMS (Messages.json) or a call (Calls.json). */
export type TwilioRequest =
  | { kind: 'sms'; to: string; from: string; body: string; auth: BasicAuth; sid: string }
  | { kind: 'call'; to: string; from: string; twiml: string; auth: BasicAuth; sid: string };

export interface BasicAuth {
  username: string;
  password: string;
}

export interface FakeTwilioOptions {
  accountSid?: string;
  authToken?: string;
}

const RESOURCE = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/;

/**
 * A real HTTP server on a free local port that speaks the Twilio REST shape: POST
 * `/2010-04-01/Accounts/{sid}/Messages.json` and `.../Calls.json`, form-encoded, with Basic
 * auth `sid:token`. It records what it accepts and answers 201 like Twilio; it can be told
 * to fail the next requests with 500.
 */
export class FakeTwilio {
  private readonly arrivals = new Arrivals<TwilioRequest>('Twilio request');

  /** Everything received, in arrival order. */
  get requests(): TwilioRequest[] {
    return this.arrivals.items;
  }

  /** How many requests were refused on purpose with 500 so far. */
  failedRequests = 0;
  readonly accountSid: string;
  readonly authToken: string;
  private failures = 0;
  private counter = 0;

  private constructor(
    private readonly server: Server,
    options: FakeTwilioOptions,
  ) {
    this.accountSid = options.accountSid ?? 'AC_test';
    this.authToken = options.authToken ?? 'secret';
  }

  static async start(options: FakeTwilioOptions = {}): Promise<FakeTwilio> {
    // eslint-disable-next-line prefer-const -- assigned once the server it closes over exists
    let fake: FakeTwilio | undefined;
    const server = createServer((request, response) => {
      fake!.handle(request, response).catch((error: Error) => {
        if (!response.headersSent) reply(response, 500, { message: error.message, status: 500 });
      });
    });
    fake = new FakeTwilio(server, options);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The `phone` section of AppConfig pointing at this fake. */
  config(from = '+15550000000') {
    return { apiUrl: this.url, accountSid: this.accountSid, authToken: this.authToken, from };
  }

  /** The next `count` requests (after authentication) answer 500. */
  failNext(count = 1): void {
    this.failures += count;
  }

  /** Resolves with the first Twilio request (already received or arriving) that matches. */
  waitFor(
    predicate?: (item: TwilioRequest) => boolean,
    timeoutMs?: number,
  ): Promise<TwilioRequest> {
    return this.arrivals.waitFor(predicate, timeoutMs);
  }

  clear(): void {
    this.arrivals.clear();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const match = RESOURCE.exec(new URL(request.url ?? '/', 'http://fake').pathname);
    if (request.method !== 'POST' || !match) {
      reply(response, 404, {
        code: 20404,
        message: 'The requested resource was not found',
        status: 404,
      });
      return;
    }
    const auth = parseBasicAuth(request.headers.authorization);
    const sid = decodeURIComponent(match[1]);
    if (
      !auth ||
      auth.username !== this.accountSid ||
      auth.password !== this.authToken ||
      sid !== this.accountSid
    ) {
      response.setHeader('WWW-Authenticate', 'Basic realm="Twilio API"');
      reply(response, 401, { code: 20003, message: 'Authenticate', status: 401 });
      return;
    }
    if (this.failures > 0) {
      this.failures -= 1;
      this.failedRequests += 1;
      reply(response, 500, { code: 20500, message: 'Internal Server Error', status: 500 });
      return;
    }
    const form = new URLSearchParams(body);
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    const isCall = match[2] === 'Calls';
    const content = isCall ? form.get('Twiml') : form.get('Body');
    if (!to || !from || !content) {
      reply(response, 400, {
        code: 21602,
        message: `Missing required parameter ${!to ? 'To' : !from ? 'From' : isCall ? 'Twiml' : 'Body'}`,
        status: 400,
      });
      return;
    }
    this.counter += 1;
    const resourceSid = `${isCall ? 'CA' : 'SM'}${String(this.counter).padStart(32, '0')}`;
    this.arrivals.push(
      isCall
        ? { kind: 'call', to, from, twiml: content, auth, sid: resourceSid }
        : { kind: 'sms', to, from, body: content, auth, sid: resourceSid },
    );
    reply(response, 201, { sid: resourceSid, status: 'queued', to, from });
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parseBasicAuth(header: string | undefined): BasicAuth | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function reply(response: ServerResponse, status: number, body: Record<string, unknown>): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}
