import type { ErrorDoc } from '@platform/core';

/*
 * The documented failures of the capability routes, by code, beside the access guard's that
 * the identity module names (identity-errors.openapi.ts). The request contract's own failures
 * (400, 413, 415, the 422 of a NUL in the input, 503) are added to every operation by the
 * document itself.
 */

/** A provisioned feature, or a decision beyond the Limit, by an organization admin. */
export const PLATFORM_ADMIN_REQUIRED: ErrorDoc = [
  403,
  'platform_admin_required',
  'the feature is provisioned by the platform, or the decision goes beyond the Limit: a platform admin decides',
];

/** 404 for the project of the path (unknown, malformed or not visible), and `what` when given. */
export const projectNotFoundDoc = (what?: string): ErrorDoc => [
  404,
  'not_found',
  'the project is unknown or not visible to the caller' + (what ? `, or ${what}` : ''),
];

/** The catalog has no feature of the path's `feature_key`. */
export const FEATURE_NOT_FOUND = 'no feature has this key';
