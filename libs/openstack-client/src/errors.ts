/**
 * Why a call to an OpenStack cloud failed, for callers without the API's error envelope (the
 * operators); the API passes its own failures (rule 4 of 4-cloud-resources.md) instead.
 */
export interface OpenStackFailures {
  /** Keystone refused the credentials (401 or 403 on the auth request). */
  refused(status: number): Error;
  /** No usable answer: unreachable, an unexpected status, or a token or catalog short of it. */
  unavailable(what: string): Error;
}

export class OpenStackAuthRefused extends Error {
  override readonly name = 'OpenStackAuthRefused';
  constructor(readonly status: number) {
    super(`Keystone refused the credentials (${status})`);
  }
}

export class OpenStackUnavailable extends Error {
  override readonly name = 'OpenStackUnavailable';
  constructor(what: string) {
    super(`OpenStack is unavailable: ${what}`);
  }
}

/** A service answered an error status to a call (after the retries the call allows). */
export class OpenStackHttpError extends Error {
  override readonly name = 'OpenStackHttpError';
  constructor(
    readonly status: number,
    readonly upstreamMessage: string | undefined,
    what: string,
  ) {
    super(`${what} answered ${status}${upstreamMessage ? `: ${upstreamMessage}` : ''}`);
  }
}

export const PLAIN_FAILURES: OpenStackFailures = {
  refused: (status) => new OpenStackAuthRefused(status),
  unavailable: (what) => new OpenStackUnavailable(what),
};

/** The message of an OpenStack error body (`{"itemNotFound": {"message": ...}}`, ...). */
export function openStackMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim().slice(0, 500) || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.message === 'string') return record.message.slice(0, 500);
  for (const value of Object.values(record)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const inner = openStackMessage(value);
      if (inner) return inner;
    }
  }
  return undefined;
}
