import { describe, expect, it } from '@jest/globals';
import type { AppException } from '@platform/core';
import { ROLE_PERMISSIONS, type Role } from '../access/permissions.js';
import type { Account, ApiToken, Membership } from '../entities.js';
import { assertWithinCeiling, grantorOf, levelsAboveCeiling } from './role-ceiling.js';

const account = (isPlatformAdmin = false) => ({ id: 'a', isPlatformAdmin }) as Account;
const membership = (role: Role, permissions = {}) => ({ role, permissions }) as Membership;
const token = (scopes: string[]) => ({ scopes }) as ApiToken;

/** The error an assertion throws, as status, code and details. */
function refusal(run: () => void) {
  try {
    run();
  } catch (error) {
    const e = error as AppException;
    return { status: e.status, code: e.code, ...(e.details as object | undefined) };
  }
  return null;
}

describe('role ceiling', () => {
  it('holds what the membership holds; platform admins hold everything', () => {
    expect(grantorOf(account(), membership('developer'), null)).toEqual({
      ceiling: ROLE_PERMISSIONS.developer,
      administers: false,
    });
    expect(grantorOf(account(), membership('admin'), null).administers).toBe(true);
    expect(grantorOf(account(true), membership('viewer'), null)).toEqual({
      ceiling: ROLE_PERMISSIONS.admin,
      administers: true,
    });
    const stranger = grantorOf(account(), null, null);
    expect(Object.values(stranger.ceiling).flat()).toEqual([]);
  });

  it("narrows a token's ceiling to its scopes", () => {
    const { ceiling } = grantorOf(account(), membership('admin'), token(['members:write']));
    expect(ceiling.members).toEqual(['read', 'create', 'update']);
    expect(ceiling.billing).toEqual([]);
    expect(ceiling.projects).toEqual([]);
  });

  it('counts only the levels a change adds', () => {
    const developer = ROLE_PERMISSIONS.developer;
    expect(
      levelsAboveCeiling(developer, null, { role: 'billing_manager', permissions: {} }),
    ).toEqual({ billing: ['read', 'create', 'update', 'delete'] });
    // Levels the membership already had are not granted by this change.
    expect(
      levelsAboveCeiling(
        developer,
        { role: 'billing_manager', permissions: {} },
        { role: 'billing_manager', permissions: { tokens: ['read'] } },
      ),
    ).toEqual({});
    expect(
      levelsAboveCeiling(
        developer,
        { role: 'viewer', permissions: {} },
        { role: 'viewer', permissions: { members: ['read', 'update'], projects: ['create'] } },
      ),
    ).toEqual({ members: ['update'], projects: ['create'] });
  });

  it('refuses admin memberships to anyone but admins with 403 forbidden', () => {
    const developer = grantorOf(account(), membership('developer', { members: ['update'] }), null);
    const admin = { role: 'admin' as const, permissions: {} };
    const viewer = { role: 'viewer' as const, permissions: {} };
    for (const [before, after] of [
      [viewer, admin],
      [admin, viewer],
      [admin, null],
      [null, admin],
    ] as const) {
      expect(refusal(() => assertWithinCeiling(developer, before, after))).toEqual({
        status: 403,
        code: 'forbidden',
      });
    }
    const owner = grantorOf(account(), membership('admin'), null);
    expect(refusal(() => assertWithinCeiling(owner, admin, viewer))).toBeNull();
    expect(refusal(() => assertWithinCeiling(owner, viewer, admin))).toBeNull();
  });

  it('refuses levels above the ceiling with 403 role_ceiling naming them', () => {
    const developer = grantorOf(account(), membership('developer'), null);
    expect(
      refusal(() =>
        assertWithinCeiling(developer, null, { role: 'billing_manager', permissions: {} }),
      ),
    ).toEqual({
      status: 403,
      code: 'role_ceiling',
      exceeding: { billing: ['read', 'create', 'update', 'delete'] },
    });
    expect(
      refusal(() => assertWithinCeiling(developer, null, { role: 'operator', permissions: {} })),
    ).toBeNull();
    // Taking levels away is never above anyone's ceiling.
    expect(
      refusal(() =>
        assertWithinCeiling(
          developer,
          { role: 'billing_manager', permissions: {} },
          { role: 'viewer', permissions: {} },
        ),
      ),
    ).toBeNull();
  });
});
