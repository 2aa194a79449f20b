import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { RequestWithContext } from '@platform/core';
import type { Account, ApiToken, Membership } from '../entities.js';
import {
  allows,
  type Category,
  type Level,
  type PermissionSet,
  scopesAllow,
} from './permissions.js';

/** Who is calling, established by the AccessGuard for every authenticated route. */
export interface Principal {
  account: Account;
  /** Present when a static token was presented. */
  token: ApiToken | null;
  via: 'bearer' | 'cookie' | 'token';
  /** The login session when a JWT (bearer or cookie) was presented: its id and issue time. */
  session: { id: string; issuedAt: Date } | null;
  /** The organization the request acts in (null on account-wide routes, see confinementOf). */
  organizationId: string | null;
  projectId: string | null;
  /** The caller's membership in that organization (null for platform admins without one). */
  membership: Membership | null;
  permissions: PermissionSet | null;
}

export type AuthenticatedRequest = RequestWithContext & { principal?: Principal };

export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => {
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (!principal) throw new Error('CurrentPrincipal used on a route without @Authenticated');
    return principal;
  },
);

/** The principal of a route whose scope guarantees an organization. */
export function organizationOf(principal: Principal): string {
  if (!principal.organizationId) throw new Error('route is not organization-scoped');
  return principal.organizationId;
}

/**
 * Whether the caller could pass a route guarded by `permission` (and, for a static token,
 * `scopeResource` at that level): for answers that show more to those who may do more.
 */
export function principalMay(
  principal: Principal,
  permission: `${Category}:${Level}`,
  scopeResource?: string,
): boolean {
  const [category, level] = permission.split(':') as [Category, Level];
  if (!principal.permissions || !allows(principal.permissions, category, level)) return false;
  return !principal.token || scopesAllow(principal.token.scopes, scopeResource ?? category, level);
}

/**
 * The one organization an account-wide route may show or change for this caller: a static
 * token's own, as a token acts only inside its organization; null for a login session, which
 * sees the account across all of its organizations.
 */
export function confinementOf(principal: Principal): string | null {
  return principal.token?.organizationId ?? null;
}
