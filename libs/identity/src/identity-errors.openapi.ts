import type { ErrorDoc } from '@platform/core';

/*
 * The documented failures of the identity routes, by code. The request contract's own
 * failures (400, 413, 415, the 422 of a NUL in the input, 503) are added to every operation
 * by the document itself.
 */

/** Failures every organization-scoped route shares (the access guard's). */
export const ORGANIZATION_ACCESS_ERRORS: readonly ErrorDoc[] = [
  [401, 'unauthorized', 'no credentials, or an invalid, revoked or expired session or token'],
  [403, 'forbidden', 'the member lacks the permission the route needs'],
  [
    403,
    'insufficient_scope',
    "the token's scopes do not cover the route's scope resource at the level it needs",
  ],
  [
    403,
    'organization_required',
    'no organization named while the account belongs to none or to several',
  ],
  [404, 'not_found', 'the organization is unknown or not visible to the caller'],
];

/** The cookie session of a write without its CSRF header. */
export const CSRF_ERROR: ErrorDoc = [
  403,
  'invalid_csrf_token',
  'a cookie session without an X-CSRF-Token header matching its CSRF cookie',
];

/** A route that only a login session may call. */
export const INTERACTIVE_ONLY_ERROR: ErrorDoc = [
  403,
  'interactive_session_required',
  'a static token calls a route only a login session may call',
];

/** A session minting a static token (reauthentication). */
export const REAUTHENTICATION_ERRORS: readonly ErrorDoc[] = [
  [
    403,
    'reauthentication_required',
    'a session older than 15 minutes that sends no current_password',
  ],
  [429, 'too_many_attempts', 'too many wrong passwords for this account; Retry-After says when'],
];
