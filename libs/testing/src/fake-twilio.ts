import { Arrivals, containsAll } from './arrivals.js';
import { createHmac } from 'node:crypto';
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

/** A call the fake placed. */
export type TwilioCall = Extract<TwilioRequest, { kind: 'call' }>;

/** How the fake reaches the application for a webhook. */
export interface WebhookDelivery {
  /**
   * Where the application really listens (e.g. a test app's `baseUrl`): the webhook URL's
   * origin is replaced by it for the request, while the signature still covers the URL as
   * configured, the way Twilio reaches an application behind a proxy.
   */
  deliverTo?: string;
  /** Send this `X-Twilio-Signature` instead of the genuine one. */
  signature?: string;
}

/** What the application answered to a webhook. */
export interface WebhookReply {
  status: number;
  contentType: string;
  body: string;
}

const RESOURCE = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/;

/**
 * A real HTTP server on a free local port that speaks the Twilio REST shape: POST
 * `/2010-04-01/Accounts/{sid}/Messages.json` and `.../Calls.json`, form-encoded, with Basic
 * auth `sid:token`. It records what it accepts (a call with its TwiML) and answers 201 like
 * Twilio; it can be told to fail the next requests with 500. Like Twilio it calls back: a
 * placed call can be answered with digits (the `<Gather action>` webhook) and an inbound SMS
 * can be delivered to a messaging webhook, both signed with `X-Twilio-Signature`.
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

  /**
   * The phone at `number`, as a person holding it sees it: `expectSms` and `expectCall` wait for
   * the next text or call to it containing every fragment, and take it.
   */
  device(number: string): TwilioDevice {
    return new TwilioDevice(this.arrivals, number);
  }

  /**
   * Fails, listing them, when texts or calls arrived that no device expectation took: run at
   * the end of a test (as GoAlert's smoke harness does), so a message nobody expected is an
   * error, not noise.
   */
  expectNoUnexpected(): void {
    const unexpected = this.arrivals.untaken();
    if (unexpected.length > 0)
      throw new Error(
        `unexpected ${unexpected.length} text(s)/call(s): ${unexpected
          .map((r) => `${r.kind} to ${r.to}: ${r.kind === 'sms' ? r.body : r.twiml}`)
          .join('; ')}`,
      );
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

  /**
   * Answers a call the fake placed by pressing `digits`: POSTs, as Twilio does, the
   * form-encoded call parameters with `Digits` to the `action` URL of the call's `<Gather>`,
   * signed with `X-Twilio-Signature`.
   */
  answer(call: TwilioCall, digits: string, delivery: WebhookDelivery = {}): Promise<WebhookReply> {
    return this.webhook(
      gatherAction(call.twiml),
      {
        AccountSid: this.accountSid,
        CallSid: call.sid,
        CallStatus: 'in-progress',
        Digits: digits,
        Direction: 'outbound-api',
        From: call.from,
        To: call.to,
      },
      delivery,
    );
  }

  /** An SMS from `from` arriving at `to`: Twilio's inbound message webhook POSTed to `url`. */
  receiveSms(
    url: string,
    message: { from: string; body: string; to?: string },
    delivery: WebhookDelivery = {},
  ): Promise<WebhookReply> {
    this.counter += 1;
    return this.webhook(
      url,
      {
        AccountSid: this.accountSid,
        Body: message.body,
        From: message.from,
        MessageSid: `SM${String(this.counter).padStart(32, '0')}`,
        NumMedia: '0',
        To: message.to ?? '+15550000000',
      },
      delivery,
    );
  }

  /** Twilio's `X-Twilio-Signature` of a POST to `url` with `params`, under this auth token. */
  sign(url: string, params: Record<string, string>): string {
    const data = Object.keys(params)
      .sort()
      .map((name) => name + params[name])
      .join('');
    return createHmac('sha1', this.authToken)
      .update(url + data)
      .digest('base64');
  }

  private async webhook(
    url: string,
    params: Record<string, string>,
    delivery: WebhookDelivery,
  ): Promise<WebhookReply> {
    const target = new URL(url);
    const base = delivery.deliverTo ? new URL(delivery.deliverTo) : target;
    const requested = new URL(`${target.pathname}${target.search}`, base.origin);
    const response = await fetch(requested, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Twilio-Signature': delivery.signature ?? this.sign(url, params),
        'User-Agent': 'TwilioProxy/1.1',
      },
      body: new URLSearchParams(params).toString(),
    });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: await response.text(),
    };
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

const XML_ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&apos;': "'",
};

/** The `action` URL of the `<Gather>` in a call's TwiML. */
export function gatherAction(twiml: string): string {
  const gather = /<Gather\b[^>]*>/.exec(twiml);
  const action = gather && /\baction="([^"]*)"/.exec(gather[0]);
  if (!action) throw new Error(`the call's TwiML has no <Gather action>: ${twiml}`);
  return action[1].replace(/&(amp|lt|gt|quot|apos);/g, (entity) => XML_ENTITIES[entity]);
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

/** One phone number's view of the fake: what arrives at it. */
export class TwilioDevice {
  constructor(
    private readonly arrivals: Arrivals<TwilioRequest>,
    readonly number: string,
  ) {}

  /** The next text to this number containing every fragment. */
  async expectSms(
    ...fragments: Array<string | RegExp>
  ): Promise<Extract<TwilioRequest, { kind: 'sms' }>> {
    const sms = await this.arrivals.take(
      (r) => r.kind === 'sms' && r.to === this.number && containsAll(r.body, fragments),
    );
    return sms as Extract<TwilioRequest, { kind: 'sms' }>;
  }

  /** The next call to this number whose TwiML contains every fragment. */
  async expectCall(...fragments: Array<string | RegExp>): Promise<TwilioCall> {
    const call = await this.arrivals.take(
      (r) => r.kind === 'call' && r.to === this.number && containsAll(r.twiml, fragments),
    );
    return call as TwilioCall;
  }
}
