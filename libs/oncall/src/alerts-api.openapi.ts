import { ApiParam } from '@nestjs/swagger';
import { ApiErrors, type ErrorDoc } from '@platform/core';

/*
 * Documentation of the escalation API's errors and parameters (on-call rosters here; chains,
 * steps and acknowledgements in the escalation library, which imports these), on top of the
 * general response helpers of the core module.
 */

export { ApiData, ApiErrors, type ErrorDoc, ResponseMetadata } from '@platform/core';

/** Failures every project route of the escalation API (rosters included) shares. */
export const ACCESS_ERRORS: readonly ErrorDoc[] = [
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

/** 404 for the project (unknown or not visible to the caller), and for `what` when given. */
export const notFound = (what?: string): ErrorDoc => [
  404,
  'not_found',
  'the project is unknown or not visible to the caller, an id in the path is not a UUID' +
    (what ? `, or ${what}` : ''),
];

/** 422 with `details.fields: [{field, messages}]`; nothing was written. */
export const invalid = (rules: string): ErrorDoc => [
  422,
  'validation_failed',
  `${rules}; \`details.fields\` names each failing field with its messages and nothing is written`,
];

const CSRF: ErrorDoc = [
  403,
  'invalid_csrf_token',
  'a cookie session without an X-CSRF-Token header matching its CSRF cookie',
];

/** The shared access failures of a project route that reads, then the route's own. */
export const ApiProjectErrors = (...errors: ErrorDoc[]) => ApiErrors(...ACCESS_ERRORS, ...errors);

/** The shared access failures of a project route that writes, then the route's own. */
export const ApiProjectWriteErrors = (...errors: ErrorDoc[]) =>
  ApiErrors(...ACCESS_ERRORS, CSRF, ...errors);

/** `{project_id}`, which every project route carries and no handler reads as a parameter. */
export const ApiProjectParam = () =>
  ApiParam({
    name: 'project_id',
    type: String,
    format: 'uuid',
    description: 'the project; a malformed or unknown id answers 404 `not_found`',
  });

/** A path id checked as a UUID; anything else names nothing and answers 404. */
export const ApiIdParam = (name: string, description: string) =>
  ApiParam({ name, type: String, format: 'uuid', description });
