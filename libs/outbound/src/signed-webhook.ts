/**
 * Standard Webhooks deliveries (signed JSON POSTs) through the outbound client. Here rather than
 * with the notification channels so that processes without the API's modules (the backup
 * operator) sign exactly as the notification webhooks do.
 */
import { performance } from 'node:perf_hooks';
import { OutboundTimeoutError, UrlNotAllowedError } from './outbound-http.js';
import type { OutboundHttp } from './outbound-http.js';
import { Webhook } from 'standardwebhooks';

/** The most of a failed attempt's answer kept for the attempt log. */
export const RESPONSE_EXCERPT_CHARS = 1024;

export interface SignedRequest {
  url: string;
  /** The `webhook-id`: the delivery id, identical on every retry so receivers can deduplicate. */
  messageId: string;
  body: string;
  timestamp: Date;
  /** Secrets to sign with; more than one during a rotation (one signature each). */
  secrets: readonly string[];
  timeoutMs: number;
  userAgent: string;
}

export interface SendResult {
  ok: boolean;
  /** The URL was not allowed (see OutboundHttp): no request was made. */
  refused: boolean;
  status: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

/** The Standard Webhooks headers: id, timestamp in seconds, space-separated `v1,` signatures. */
export function signatureHeaders(request: {
  messageId: string;
  body: string;
  timestamp: Date;
  secrets: readonly string[];
}): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': request.messageId,
    'webhook-timestamp': String(Math.floor(request.timestamp.getTime() / 1000)),
    'webhook-signature': request.secrets
      .map((secret) => new Webhook(secret).sign(request.messageId, request.timestamp, request.body))
      .join(' '),
  };
}

/**
 * One signed JSON POST through the outbound client. Any 2xx is success; redirects are not
 * followed (a 3xx is a failed attempt, so a delivery never lands somewhere the endpoint's
 * owner did not name). Only a failure keeps an excerpt of the answer: what a receiver says
 * on success is its own business. Never throws: a refused URL, network errors and timeouts
 * come back as a failed result; `refused` marks that nothing was sent.
 */
export async function sendSignedWebhook(
  outbound: OutboundHttp,
  request: SignedRequest,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  try {
    const response = await outbound.request({
      method: 'POST',
      url: request.url,
      timeoutMs: request.timeoutMs,
      headers: {
        'content-type': 'application/json',
        'user-agent': request.userAgent,
        ...signatureHeaders(request),
      },
      body: request.body,
    });
    const ok = response.status >= 200 && response.status < 300;
    const redirect = response.status >= 300 && response.status < 400;
    return {
      ok,
      refused: false,
      status: response.status,
      responseBody: ok ? null : excerpt(response.body),
      error: ok
        ? null
        : redirect
          ? `redirect to ${response.headers.location ?? '(no location)'} not followed`
          : `receiver answered ${response.status}`,
      durationMs: elapsed(),
    };
  } catch (error) {
    return {
      ok: false,
      refused: error instanceof UrlNotAllowedError,
      status: null,
      responseBody: null,
      error: describeFailure(error),
      durationMs: elapsed(),
    };
  }
}

/** The first characters of the answer, for the attempt log. */
function excerpt(body: Buffer): string | null {
  // A character cut in half at the read limit decodes as U+FFFD; PostgreSQL text cannot
  // hold NUL characters.
  const text = body.toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS).split('\u0000').join('');
  return text.length > 0 ? text : null;
}

function describeFailure(error: unknown): string {
  if (error instanceof UrlNotAllowedError || error instanceof OutboundTimeoutError) {
    return error.message;
  }
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code && message && !message.includes(code)) return `${code}: ${message}`;
  return message ?? code ?? String(error);
}
