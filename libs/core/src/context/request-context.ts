import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Request } from 'express';

/** The tightest rate limit a request counted against, for its RateLimit headers. */
export interface RateLimitState {
  limit: number;
  /** Events the counter has room for after this one (0 when refused). */
  remaining: number;
  /** Seconds until the counter frees an event. */
  resetSeconds: number;
}

/** What the platform knows about the request being served. */
export interface RequestContext {
  requestId: string;
  method: string;
  path: string;
  /** The client's address (request.ip, through trusted proxies only), for security notices. */
  clientAddress?: string | null;
  userAgent?: string | null;
  /** `<controller>.<handler>` once a route matched; used as `source_operation` of errors. */
  operation?: string;
  /** The matched route answers errors with the multi-error envelope (`@MultiErrorEnvelope`). */
  multiErrorEnvelope?: boolean;
  /** The API major version this request resolved to, or null when the client asked for an unknown one. */
  apiVersion: number | null;
  /** The raw header value when it named no supported version. */
  requestedApiVersion?: string;
  organizationId?: string | null;
  projectId?: string;
  rateLimit?: RateLimitState;
}

const storage = new AsyncLocalStorage<RequestContext>();

export type RequestWithContext = Request & { context?: RequestContext };

/** Incoming ids are kept when they look like ids, so a caller's trace survives the hop. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && ACCEPTABLE_REQUEST_ID.test(value) ? value : randomUUID();
}

export const RequestContexts = {
  current(): RequestContext | undefined {
    return storage.getStore();
  },
  run<T>(context: RequestContext, fn: () => T): T {
    return storage.run(context, fn);
  },
  /** The context of an HTTP request, which outlives async hops that lose the storage. */
  of(request: RequestWithContext): RequestContext | undefined {
    return request.context;
  },
};
