import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';

/** The most of a receiver's answer kept for the attempt log. */
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
 * One signed JSON POST. Any 2xx is success; redirects are not followed (a 3xx is a failed
 * attempt, so a delivery never lands somewhere the endpoint's owner did not name). Never
 * throws: network errors and timeouts come back as a failed result.
 */
export async function sendSignedWebhook(request: SignedRequest): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': request.userAgent,
        ...signatureHeaders(request),
      },
      body: request.body,
    });
    const responseBody = await excerpt(response);
    const ok = response.status >= 200 && response.status < 300;
    const redirect = response.status >= 300 && response.status < 400;
    return {
      ok,
      status: response.status,
      responseBody,
      error: ok
        ? null
        : redirect
          ? `redirect to ${response.headers.get('location') ?? '(no location)'} not followed`
          : `receiver answered ${response.status}`,
      durationMs: elapsed(),
    };
  } catch (error) {
    return {
      ok: false,
      status: null,
      responseBody: null,
      error: describeFailure(error, request.timeoutMs),
      durationMs: elapsed(),
    };
  }
}

/** The first characters of the answer; the rest is not read, so a huge body costs nothing. */
async function excerpt(response: Response): Promise<string | null> {
  if (!response.body) return null;
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < RESPONSE_EXCERPT_CHARS) {
      const chunk = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (chunk.done || !chunk.value) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch {
    // A body cut off mid-way still tells the status; keep what arrived.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  // PostgreSQL text cannot hold NUL characters.
  const kept = text.slice(0, RESPONSE_EXCERPT_CHARS).split('\u0000').join('');
  return kept.length > 0 ? kept : null;
}

function describeFailure(error: unknown, timeoutMs: number): string {
  // Duck-typed: errors raised inside fetch may come from another realm than this module's Error.
  const { name, message, cause } = (error ?? {}) as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  if (cause?.code) return cause.message ? `${cause.code}: ${cause.message}` : cause.code;
  if (cause?.message) return cause.message;
  return message ?? String(error);
}
