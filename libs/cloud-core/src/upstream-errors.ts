import { AppException, defineException } from '@platform/core';

/**
 * The failures of a cloud route whose cause is upstream (4-cloud-resources.md, rule 4), the
 * same for every provider: the upstream's own 404 and 409 pass through, what it refuses as
 * invalid is a 422 carrying its message, and anything that keeps us from a usable answer is a
 * 502 (retryable unless our own credentials were refused) or, unconfigured, a 503.
 */
export enum CloudErrorCode {
  NotFound = 'not_found',
  Conflict = 'conflict',
  UpstreamRejected = 'upstream_rejected',
  ProviderAuthFailed = 'provider_auth_failed',
  ProviderUnavailable = 'provider_unavailable',
  ProviderNotConfigured = 'provider_not_configured',
}

export const CloudException = defineException<CloudErrorCode>('cloud', {
  [CloudErrorCode.NotFound]: 404,
  [CloudErrorCode.Conflict]: 409,
  [CloudErrorCode.UpstreamRejected]: 422,
  [CloudErrorCode.ProviderAuthFailed]: 502,
  [CloudErrorCode.ProviderUnavailable]: 502,
  [CloudErrorCode.ProviderNotConfigured]: 503,
});

/** The provider's human-readable message, wherever its error body keeps it. */
export function upstreamMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim().slice(0, 500) || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['message', 'faultstring', 'detail', 'error_description']) {
    const value = record[key];
    if (typeof value === 'string') return value.slice(0, 500);
  }
  // Nova `{"itemNotFound": {...}}`, Neutron `{"NeutronError": {...}}`, Keystone `{"error": {...}}`.
  for (const value of Object.values(record)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const inner = upstreamMessage(value);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** Rule 4: the answer to give for an upstream error status. */
export function upstreamStatusError(
  provider: string,
  status: number,
  body: unknown,
): InstanceType<typeof CloudException> {
  const message = upstreamMessage(body);
  const details = { provider, upstream_status: status, ...(message ? { message } : {}) };
  if (status === 404) return new CloudException(CloudErrorCode.NotFound, 'Resource not found');
  if (status === 409) {
    return new CloudException(
      CloudErrorCode.Conflict,
      message ?? 'The provider reports a conflict',
      {
        details,
      },
    );
  }
  if (status === 400 || status === 422 || status === 413) {
    return new CloudException(
      CloudErrorCode.UpstreamRejected,
      `The provider rejected the request${message ? `: ${message}` : ''}`,
      { details },
    );
  }
  if (status === 401 || status === 403) return providerAuthFailed(provider, status);
  return providerUnavailable(provider, `answered ${status}`, details);
}

export const providerAuthFailed = (provider: string, status: number) =>
  new CloudException(
    CloudErrorCode.ProviderAuthFailed,
    `The platform's credentials for ${provider} were refused`,
    { retryable: false, details: { provider, upstream_status: status } },
  );

export const providerUnavailable = (
  provider: string,
  what: string,
  details: Record<string, unknown> = { provider },
) =>
  new CloudException(CloudErrorCode.ProviderUnavailable, `${provider} is unavailable: ${what}`, {
    retryable: true,
    details,
  });

export const providerNotConfigured = (provider: string, variables: string) =>
  new CloudException(
    CloudErrorCode.ProviderNotConfigured,
    `${provider} is not configured on this platform (${variables})`,
    { retryable: false, details: { provider } },
  );

export const isCloudException = (error: unknown): error is AppException =>
  error instanceof AppException && error.service === 'cloud';

/** A call that got no answer in time: retrying it would only add another full timeout. */
export const isTimeout = (error: unknown): boolean =>
  error instanceof AppException &&
  (error.details as { timed_out?: boolean } | undefined)?.timed_out === true;
