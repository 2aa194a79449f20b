import {
  CATEGORIES,
  effectivePermissions,
  type PermissionOverrides,
  type PermissionSet,
  ROLE_PERMISSIONS,
  type Role,
  scopesAllow,
} from '../access/permissions.js';
import type { Account, ApiToken, Membership } from '../entities.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';

/**
 * The role ceiling: nobody hands out a permission level they do not hold themselves, and only
 * org admins touch admin memberships (promote to, demote from, remove). Platform admins hold
 * every level and count as org admins everywhere.
 */
export interface Grantor {
  /** What the caller may hand out: its permissions, narrowed to a static token's scopes. */
  ceiling: PermissionSet;
  /** An org admin (role admin) or a platform admin. */
  administers: boolean;
}

/** A membership's role and overrides, before or after a change (null: none). */
export interface Grant {
  role: Role;
  permissions: PermissionOverrides;
}

/** No level in any category: someone who (no longer) belongs to the organization. */
const NOTHING = Object.fromEntries(CATEGORIES.map((c) => [c, []])) as unknown as PermissionSet;

/** The caller as a grantor, from its current membership (read under the organization's lock). */
export function grantorOf(
  account: Account,
  membership: Membership | null,
  token: ApiToken | null,
): Grantor {
  const held = account.isPlatformAdmin
    ? ROLE_PERMISSIONS.admin
    : membership
      ? effectivePermissions(membership.role, membership.permissions)
      : NOTHING;
  // A token acts with the intersection of its owner's permissions and its scopes, so it
  // cannot hand out more than it could do itself.
  const ceiling = token
    ? (Object.fromEntries(
        CATEGORIES.map((c) => [c, held[c].filter((l) => scopesAllow(token.scopes, c, l))]),
      ) as PermissionSet)
    : held;
  return { ceiling, administers: account.isPlatformAdmin || membership?.role === 'admin' };
}

/** The levels `after` holds that neither `before` nor the ceiling does, by category. */
export function levelsAboveCeiling(
  ceiling: PermissionSet,
  before: Grant | null,
  after: Grant,
): PermissionOverrides {
  const had = before ? effectivePermissions(before.role, before.permissions) : null;
  const gets = effectivePermissions(after.role, after.permissions);
  const above: PermissionOverrides = {};
  for (const category of CATEGORIES) {
    const added = gets[category].filter((level) => !had?.[category].includes(level));
    const exceeding = added.filter((level) => !ceiling[category].includes(level));
    if (exceeding.length > 0) above[category] = exceeding;
  }
  return above;
}

/**
 * Refuses a membership change above the grantor: 403 `forbidden` when an admin membership is
 * promoted to, demoted from or removed by someone who is no org admin (the spec's admin-only
 * change); 403 `role_ceiling` when the change adds a level the grantor lacks, naming those
 * levels in `details.exceeding`. Taking levels away is within anyone's reach who may change
 * the membership at all.
 */
export function assertWithinCeiling(
  grantor: Grantor,
  before: Grant | null,
  after: Grant | null,
): void {
  if ((before?.role === 'admin' || after?.role === 'admin') && !grantor.administers) {
    throw new IdentityException(
      IdentityErrorCode.Forbidden,
      'Only organization admins grant, change or remove admin memberships',
    );
  }
  if (!after) return;
  const exceeding = levelsAboveCeiling(grantor.ceiling, before, after);
  if (Object.keys(exceeding).length > 0) {
    const named = Object.entries(exceeding).map(([c, levels]) => `${c}:${levels.join('/')}`);
    throw new IdentityException(
      IdentityErrorCode.RoleCeiling,
      `Nobody grants more than they hold: ${named.join(', ')} exceed your own permissions`,
      { details: { exceeding } },
    );
  }
}
