import { ApiErrors, type ErrorDoc } from '@platform/core';

/*
 * The documented failures of the alerting routes, by code. The request contract's own
 * failures (400, 413, 415, the 422 of a NUL in the input, 503) are added to every operation
 * by the document itself.
 */

/** Failures every project route of the alerting API shares. */
export const ALERTING_ACCESS_ERRORS: readonly ErrorDoc[] = [
  [401, 'unauthorized', 'no credentials, or an invalid, revoked or expired session or token'],
  [403, 'forbidden', 'the member lacks the alerts permission the route needs'],
  [
    403,
    'insufficient_scope',
    "the token's scopes do not cover the route's scope resource at the level it needs",
  ],
  [403, 'static_token_cross_project', 'a token bound to another project'],
  [403, 'alerts_capability_not_enabled', 'the project does not have the alerts capability'],
];

const CSRF: ErrorDoc = [
  403,
  'invalid_csrf_token',
  'a cookie session without an X-CSRF-Token header matching its CSRF cookie',
];

/** 404 for the project (unknown or not visible to the caller), and for `what` when given. */
export const alertingNotFoundDoc = (what?: string): ErrorDoc => [
  404,
  'not_found',
  'the project is unknown or not visible to the caller' + (what ? `, or ${what}` : ''),
];

/** 422 with `details.fields: [{field, messages}]`; nothing was written. */
export const alertingInvalidDoc = (rules: string): ErrorDoc => [
  422,
  'validation_failed',
  `${rules}; \`details.fields\` names each failing field with its messages and nothing is written`,
];

/** The shared access failures of a project route that reads, then the route's own. */
export const ApiAlertingErrors = (...errors: ErrorDoc[]) =>
  ApiErrors(...ALERTING_ACCESS_ERRORS, ...errors);

/** The shared access failures of a project route that writes, then the route's own. */
export const ApiAlertingWriteErrors = (...errors: ErrorDoc[]) =>
  ApiErrors(...ALERTING_ACCESS_ERRORS, CSRF, ...errors);
