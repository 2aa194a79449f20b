import http from 'node:http';
import https from 'node:https';
import type { OpenStackFailures } from './errors.js';

export interface TransportRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  timeoutMs?: number;
}

export interface TransportAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the answer is JSON, else the text; undefined when empty. */
  body: unknown;
}

/** JSON over HTTP as Keystone and the services are called (the API's UpstreamHttp is one). */
export interface OpenStackTransport {
  request(request: TransportRequest, service: string): Promise<TransportAnswer>;
}

/** The most one call may take when the caller sets no deadline. */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;

/** The most of an answer read; Cinder's and Keystone's stay far below it. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * A transport over node:http(s) with connections kept alive per origin, for processes that
 * have no UpstreamHttp (the operators). Not the runtime's fetch: loading it costs a process
 * some 35 MiB, more than the backup operator's whole budget allows. A call that cannot be
 * made or answered within its deadline is `unavailable`.
 */
export class NodeHttpTransport implements OpenStackTransport {
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 16 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 16 }),
  };

  constructor(private readonly failures: OpenStackFailures) {}

  request(request: TransportRequest, service: string): Promise<TransportAnswer> {
    const url = new URL(request.url);
    const secure = url.protocol === 'https:';
    const payload =
      request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
    return new Promise<TransportAnswer>((resolve, reject) => {
      const fail = (what: string) => reject(this.failures.unavailable(`${service}: ${what}`));
      const outgoing = (secure ? https : http).request(
        url,
        {
          method: request.method,
          agent: secure ? this.agents.https : this.agents.http,
          timeout: request.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
          headers: {
            accept: 'application/json',
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': payload.length }
              : {}),
            ...request.headers,
          },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          let size = 0;
          answer.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) outgoing.destroy(new Error('answer too large'));
            else chunks.push(chunk);
          });
          answer.on('error', (error) => fail(error.message));
          answer.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: answer.statusCode ?? 0,
              headers: answer.headers,
              body: parseBody(text, answer.headers['content-type']),
            });
          });
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')));
      outgoing.on('error', (error) => fail(error.message));
      outgoing.end(payload);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

/** JSON when the answer says so (and is), else the text; undefined when empty. */
function parseBody(text: string, contentType: string | undefined): unknown {
  if (!text) return undefined;
  if (!(contentType ?? '').includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    // Kept as text: the caller reports the status with what was said.
    return text;
  }
}
