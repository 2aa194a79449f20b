import http from 'node:http';
import https from 'node:https';
import { providerUnavailable } from './upstream-errors.js';
import type { UpstreamMetrics } from './upstream-metrics.js';

/** Rule 4 of 4-cloud-resources.md: the most one upstream call may take. */
export const UPSTREAM_TIMEOUT_MS = 10_000;
/** The most of an upstream answer read; providers' lists stay far below it. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export interface UpstreamRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  timeoutMs?: number;
}

export interface UpstreamAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON when the answer is JSON, else the text; undefined when empty. */
  body: unknown;
}

/**
 * JSON over HTTP to a provider the platform is configured with (OpenStack, RGW, a garden
 * cluster): never a URL a user supplied, so no address rules here. Connections are kept alive
 * per origin (each call to a warm provider is one request on an open socket); a call that
 * cannot be made or answered within its deadline is `provider_unavailable`. Status codes are
 * the caller's to map: the answer is returned whatever its status.
 */
export class UpstreamHttp {
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, keepAliveMsecs: 30_000, maxSockets: 64 }),
    https: new https.Agent({ keepAlive: true, keepAliveMsecs: 30_000, maxSockets: 64 }),
  };

  constructor(
    /** The provider's name in errors and metrics (`openstack`, `rgw`). */
    readonly provider: string,
    private readonly metrics?: UpstreamMetrics,
  ) {}

  async request(request: UpstreamRequest, service = this.provider): Promise<UpstreamAnswer> {
    const started = process.hrtime.bigint();
    try {
      const answer = await this.send(request);
      this.metrics?.observe(this.provider, service, answer.status >= 500 ? 'error' : 'ok', started);
      return answer;
    } catch (error) {
      this.metrics?.observe(this.provider, service, 'unavailable', started);
      throw error;
    }
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private send(request: UpstreamRequest): Promise<UpstreamAnswer> {
    const url = new URL(request.url);
    const secure = url.protocol === 'https:';
    const payload =
      request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
    const timeoutMs = request.timeoutMs ?? UPSTREAM_TIMEOUT_MS;
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      const fail = (what: string, timedOut = false) =>
        reject(
          providerUnavailable(this.provider, what, {
            provider: this.provider,
            timed_out: timedOut,
          }),
        );
      const outgoing = (secure ? https : http).request(
        url,
        {
          method: request.method,
          agent: secure ? this.agents.https : this.agents.http,
          headers: {
            accept: 'application/json',
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': payload.length }
              : {}),
            ...request.headers,
          },
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          let size = 0;
          incoming.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) {
              outgoing.destroy();
              fail('the answer is too large');
              return;
            }
            chunks.push(chunk);
          });
          incoming.on('error', () => fail('the answer broke off'));
          incoming.on('end', () => {
            clearTimeout(timer);
            resolve({
              status: incoming.statusCode ?? 0,
              headers: incoming.headers,
              body: parseBody(Buffer.concat(chunks), incoming.headers['content-type']),
            });
          });
        },
      );
      const timer = setTimeout(() => {
        outgoing.destroy();
        fail(`no answer within ${timeoutMs / 1000} s`, true);
      }, timeoutMs);
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        fail(error.code === 'ECONNREFUSED' ? 'connection refused' : (error.code ?? error.message));
      });
      outgoing.end(payload);
    });
  }
}

function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  if (contentType?.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
