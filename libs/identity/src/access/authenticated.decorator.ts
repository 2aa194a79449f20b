import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import { SECURITY_SCHEMES } from '@platform/core';
import type { Category, Level } from './permissions.js';

/**
 * Where a route's tenant comes from:
 * - account: account-wide, no organization (metadata.organization_id is null); a static token
 *   still acts only inside its own organization there (`confinementOf`), and needs the
 *   route's scope (`scopeResource` and `scopeLevel`) unless the route is `interactiveOnly`;
 * - organization: the `org_id` path parameter, else the `organization_id` query parameter,
 *   else the token's organization, else the caller's only membership;
 * - project: the `project_id` path parameter, whose organization the caller must belong to;
 *   with `projectIn: 'query'`, the `project_id` query parameter, or on a create the body's
 *   `project_id` (the cloud routes, whose paths name no project).
 */
export type TenantScope = 'account' | 'organization' | 'project';

export interface AccessPolicy {
  scope: TenantScope;
  /**
   * Where a project route finds its project: the path (default), or the `project_id` query
   * parameter, else the body's `project_id`; missing there, 422 `validation_failed`.
   */
  projectIn?: 'path' | 'query';
  /** `<category>:<level>`, e.g. `projects:create`; omitted: any member of the tenant. */
  permission?: `${Category}:${Level}`;
  /**
   * The static-token scope resource, when finer than the category (e.g. alert_routes), or on
   * an account-wide route, where there is no permission (e.g. notifications).
   */
  scopeResource?: string;
  /**
   * The level a static token's scope needs, when it differs from the permission's (creating
   * an alert route needs `alerts:delete` of a member but only `alert_routes:write` of a token),
   * or on an account-wide route.
   */
  scopeLevel?: Level;
  /**
   * Also accept an ingest token (`hq_ing_…`, project-bound, `alerts:write` only). Every other
   * route answers 401 to one, so a leaked ingest token can do nothing but post alerts. On a
   * project route an ingest token bound to another project gets 403 `static_token_cross_project`.
   */
  acceptsIngestToken?: boolean;
  /** Only a JWT or cookie session, never a static token (e.g. minting tokens). */
  interactiveOnly?: boolean;
  /** Only platform admins (platform-wide administration such as broadcasts). */
  platformAdmin?: boolean;
}

export const ACCESS_POLICY = 'platform:access-policy';

/**
 * Declares who may call a route; read by the global AccessGuard. The OpenAPI document shows
 * the credentials it takes: a bearer (session JWT or API token) or the session cookie, and an
 * ingest token where the policy accepts one.
 */
export const Authenticated = (policy: AccessPolicy): MethodDecorator & ClassDecorator =>
  applyDecorators(
    SetMetadata(ACCESS_POLICY, policy),
    ApiSecurity(SECURITY_SCHEMES.bearer),
    ApiSecurity(SECURITY_SCHEMES.session),
    ...(policy.acceptsIngestToken ? [ApiSecurity(SECURITY_SCHEMES.ingestToken)] : []),
  );
