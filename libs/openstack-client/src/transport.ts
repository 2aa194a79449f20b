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

/**
 * A transport over the runtime's fetch, for processes that have no UpstreamHttp (the
 * operators): a call that cannot be made or answered within its deadline is `unavailable`.
 */
export class FetchTransport implements OpenStackTransport {
  constructor(private readonly failures: OpenStackFailures) {}

  async request(request: TransportRequest, service: string): Promise<TransportAnswer> {
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: request.method,
        headers: {
          accept: 'application/json',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...request.headers,
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.timeout(request.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS),
      });
    } catch (error) {
      throw this.failures.unavailable(`${service}: ${(error as Error).message}`);
    }
    const text = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => (headers[key] = value));
    let body: unknown = text || undefined;
    if (text && (headers['content-type'] ?? '').includes('json')) {
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text: the caller reports the status with what was said.
      }
    }
    return { status: response.status, headers, body };
  }
}
