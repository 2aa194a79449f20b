import type { ErrorDoc } from '@platform/core';

/** The upstream failures of rule 4 every cloud route can answer, beside its own. */
export const UPSTREAM_ERRORS: readonly ErrorDoc[] = [
  [
    422,
    'upstream_rejected',
    'the provider refused the request as invalid; `details.message` carries its message',
  ],
  [
    502,
    'provider_auth_failed',
    "the provider refused the platform's own credentials (`retryable: false`)",
  ],
  [
    502,
    'provider_unavailable',
    'the provider failed, timed out (10 s) or could not be reached (`retryable: true`)',
  ],
  [503, 'provider_not_configured', 'the platform has no provider configured for this area'],
];

/** The upstream's 409 on a change. */
export const UPSTREAM_CONFLICT: ErrorDoc = [
  409,
  'conflict',
  'the provider reports a conflict (e.g. the resource is in use); `details.message` says which',
];
