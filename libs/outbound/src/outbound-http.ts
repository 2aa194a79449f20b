import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal, isLoopbackName } from './address-rules.js';
import { type HostResolver, type ResolvedAddress, systemResolver } from './host-resolver.js';
import { bareHostname, outboundUrlProblem } from './outbound-url.js';

/** The most of an answer read by default; the rest is never read off the socket. */
export const DEFAULT_RESPONSE_READ_LIMIT = 64 * 1024;
/** How long the check at create/update waits for the resolver. */
export const CHECK_RESOLVE_TIMEOUT_MS = 5_000;

/** A URL the client will not call; `reason` reads like "url resolves to a private address". */
export class UrlNotAllowedError extends Error {
  constructor(readonly reason: string) {
    super(`${reason}; no request made`);
    this.name = 'UrlNotAllowedError';
  }
}

/** The request's total time (resolving, connecting, the answer's head) ran out. */
export class OutboundTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

export interface OutboundOptions {
  /** OUTBOUND_ALLOW_PRIVATE_NETWORKS: skip the address rules (tests, closed networks). */
  allowPrivateNetworks: boolean;
  resolve?: HostResolver;
  /** Certificates to trust instead of the system's; tests only. */
  ca?: string | string[];
}

export interface OutboundRequest {
  /** Default POST. */
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** The most the whole request may take, lookup included; reading stops at it. */
  timeoutMs: number;
  /** Default DEFAULT_RESPONSE_READ_LIMIT bytes. */
  maxResponseBytes?: number;
  /** Ends the request early, e.g. at shutdown. */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** At most maxResponseBytes bytes of the answer. */
  body: Buffer;
  /** The answer went on past what was read, or ended early. */
  truncated: boolean;
}

/** What a request may reach: the parsed URL and the vetted addresses of its host. */
export interface VettedTarget {
  url: URL;
  hostname: string;
  addresses: ResolvedAddress[];
}

/**
 * The one HTTP client for URLs that users supply (notification endpoints, backup webhooks).
 * It parses the URL (http or https, a host, no credentials), resolves the host itself, and
 * refuses when any address is not public unicast (see address-rules), unless private networks
 * are allowed. The connection is then pinned to the vetted addresses through the socket's
 * `lookup`, so no second lookup can rebind the name, while the Host header, TLS SNI and the
 * certificate check still use the URL's host name. Redirects are never followed, the answer
 * is read up to a byte limit, and one deadline covers the whole request.
 */
export class OutboundHttp {
  private readonly resolve: HostResolver;

  constructor(private readonly options: OutboundOptions) {
    this.resolve = options.resolve ?? systemResolver;
  }

  /**
   * Why `url` may not be called, or null: the check at create and update. A name that does
   * not resolve now has no address to refuse, so it passes; the check at send time decides.
   */
  async refusal(url: string): Promise<string | null> {
    try {
      await withDeadline(this.vet(url), AbortSignal.timeout(CHECK_RESOLVE_TIMEOUT_MS));
      return null;
    } catch (error) {
      return error instanceof UrlNotAllowedError ? error.reason : null;
    }
  }

  /**
   * Sends one request and reads its answer. Throws UrlNotAllowedError (nothing was sent),
   * OutboundTimeoutError, or the network error (e.g. ECONNREFUSED, ENOTFOUND).
   */
  async request(request: OutboundRequest): Promise<OutboundResponse> {
    const deadline = AbortSignal.timeout(request.timeoutMs);
    const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
    try {
      const target = await withDeadline(this.vet(request.url), signal);
      return await this.send(target, request, signal);
    } catch (error) {
      if (deadline.aborted && !(error instanceof UrlNotAllowedError)) {
        throw new OutboundTimeoutError(request.timeoutMs);
      }
      throw error;
    }
  }

  /** Parses `raw` and resolves its host; throws UrlNotAllowedError for what may not be called. */
  async vet(raw: string): Promise<VettedTarget> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new UrlNotAllowedError('url must be an absolute http or https URL');
    }
    const problem = outboundUrlProblem(url);
    if (problem) throw new UrlNotAllowedError(problem);
    const hostname = bareHostname(url);
    const family = isIP(hostname);
    if (family !== 0) {
      this.check(hostname, 'names');
      return { url, hostname, addresses: [{ address: hostname, family: family === 6 ? 6 : 4 }] };
    }
    if (!this.options.allowPrivateNetworks && isLoopbackName(hostname)) {
      throw new UrlNotAllowedError('url names the local host');
    }
    const addresses = await this.resolve(hostname);
    if (addresses.length === 0) {
      throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
    }
    for (const { address } of addresses) this.check(address, 'resolves to');
    return { url, hostname, addresses };
  }

  private check(address: string, verb: 'names' | 'resolves to'): void {
    if (this.options.allowPrivateNetworks) return;
    const refusal = addressRefusal(address);
    if (refusal) throw new UrlNotAllowedError(`url ${verb} ${refusal}`);
  }

  private send(
    target: VettedTarget,
    request: OutboundRequest,
    signal: AbortSignal,
  ): Promise<OutboundResponse> {
    const { url, hostname, addresses } = target;
    const limit = request.maxResponseBytes ?? DEFAULT_RESPONSE_READ_LIMIT;
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const outgoing = client.request(
        {
          method: request.method ?? 'POST',
          hostname,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: { ...request.headers, host: url.host },
          // A fresh connection each time: a pooled one may have been opened for another address.
          agent: false,
          lookup: pinnedLookup(addresses),
          servername: isIP(hostname) === 0 ? hostname : undefined,
          ca: this.options.ca,
          signal,
        },
        (response) =>
          void readLimited(response, limit).then((answer) => {
            // The connection serves this request only: close it even if the peer keeps it open.
            outgoing.destroy();
            resolve(answer);
          }),
      );
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  }
}

/** A socket `lookup` that answers only the vetted addresses, never asking the resolver again. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const usable = options.family
      ? addresses.filter((a) => a.family === options.family)
      : addresses;
    if (usable.length === 0) {
      const error = Object.assign(new Error('no vetted address of that family'), {
        code: 'ENOTFOUND',
      });
      callback(error, '', 0);
    } else if (options.all) {
      callback(
        null,
        usable.map((a) => ({ address: a.address, family: a.family })),
      );
    } else {
      callback(null, usable[0].address, usable[0].family);
    }
  };
}

/**
 * Reads the answer up to `limit` bytes, then drops the connection. An answer that ends early
 * (reset, or the deadline) still has its status: what arrived is kept, marked truncated.
 */
function readLimited(response: IncomingMessage, limit: number): Promise<OutboundResponse> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    response.on('data', (chunk: Buffer) => {
      if (overflow) return;
      const room = limit - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = limit;
        overflow = true;
        response.destroy();
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    // Reset and abort surface as 'error' before 'close'; 'close' settles either way.
    response.on('error', () => undefined);
    response.on('close', () =>
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        body: Buffer.concat(chunks, size),
        truncated: overflow || !response.complete,
      }),
    );
  });
}

/** `work`, or a rejection once `signal` aborts, whichever comes first. */
function withDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
