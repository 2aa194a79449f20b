import type { ErrorDoc } from '@platform/core';

/*
 * The documented failures of the identity routes, by code, and the access guard's failures
 * the routes of other modules share. The request contract's own failures (400, 413, 415, the
 * 422 of a NUL in the input, 503) are added to every operation by the document itself.
 */

/** Any authenticated route without a valid credential. */
export const UNAUTHORIZED_ERROR: ErrorDoc = [
  401,
  'unauthorized',
  'no credentials, or an invalid, revoked or expired session or token',
];

/** A route that names a permission, called by a member who lacks it. */
export const PERMISSION_ERROR: ErrorDoc = [
  403,
  'forbidden',
  'the member lacks the permission the route needs',
];

/** A static token on a route that names a permission or a scope its scopes do not cover. */
export const SCOPE_ERROR: ErrorDoc = [
  403,
  'insufficient_scope',
  "the token's scopes do not cover the route's scope resource at the level it needs",
];

/** A route only platform admins may call. */
export const PLATFORM_ADMIN_ERROR: ErrorDoc = [403, 'forbidden', 'the caller is no platform admin'];

/** 404 for the organization (unknown, malformed or not visible), and for `what` when given. */
export const organizationNotFoundDoc = (what?: string): ErrorDoc => [
  404,
  'not_found',
  'the organization is unknown or not visible to the caller' + (what ? `, or ${what}` : ''),
];

/**
 * Failures every organization-scoped route shares that finds its organization without a path
 * parameter (the `organization_id` query parameter, the token's or the only membership).
 */
export const ORGANIZATION_ACCESS_ERRORS: readonly ErrorDoc[] = [
  UNAUTHORIZED_ERROR,
  PERMISSION_ERROR,
  SCOPE_ERROR,
  [
    403,
    'organization_required',
    'no organization named while the account belongs to none or to several',
  ],
  organizationNotFoundDoc(),
];

/**
 * The access failures of a route that names a permission and its tenant in the path (an
 * organization or a project, whose own 404 the route adds).
 */
export const PERMISSION_ROUTE_ERRORS: readonly ErrorDoc[] = [
  UNAUTHORIZED_ERROR,
  PERMISSION_ERROR,
  SCOPE_ERROR,
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

/** An account-wide route a static token may call within its scopes. */
export const ACCOUNT_TOKEN_ERRORS: readonly ErrorDoc[] = [UNAUTHORIZED_ERROR, SCOPE_ERROR];

/** An account-wide route only login sessions may call (the account's own settings). */
export const ACCOUNT_SESSION_ERRORS: readonly ErrorDoc[] = [
  UNAUTHORIZED_ERROR,
  INTERACTIVE_ONLY_ERROR,
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

/** A verification or confirmation token that cannot be used (one code for every reason). */
export const VERIFICATION_TOKEN_ERROR: ErrorDoc = [
  422,
  'invalid_verification_token',
  'the verification token is unknown, used or expired',
];

/** 422 with `details.fields: [{field, messages}]`; nothing was written. */
export const invalidDoc = (rules: string): ErrorDoc => [
  422,
  'validation_failed',
  `${rules}; \`details.fields\` names each failing field with its messages and nothing is written`,
];

/** 429 of a counted request (rate-limits); `Retry-After` says when to try again. */
export const rateLimitedDoc = (counted: string): ErrorDoc => [
  429,
  'rate_limited',
  `too many ${counted}; \`Retry-After\` says when to try again`,
];
