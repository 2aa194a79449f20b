import { describe, expect, it } from '@jest/globals';
import {
  allows,
  type Category,
  CATEGORIES,
  effectivePermissions,
  isValidScope,
  ROLE_PERMISSIONS,
  ROLES,
  scopesAllow,
} from './permissions.js';

/** The default table as documented in the README (r = read, c = create, u = update, d = delete). */
const README_TABLE: Record<string, [string, string, string, string, string]> = {
  // per role: admin, developer, operator, viewer, billing_manager
  organization: ['rcud', 'r', 'r', 'r', 'r'],
  members: ['rcud', 'r', 'r', 'r', 'r'],
  projects: ['rcud', 'r', 'r', 'r', 'r'],
  tokens: ['rcud', 'rcud', 'rcud', 'rc', 'rc'],
  webhooks: ['rcud', 'rcud', 'rcu', 'r', ''],
  alerts: ['rcud', 'rcud', 'rcu', 'r', ''],
  rgw: ['rcud', 'rcud', 'rcu', 'r', ''],
  dns: ['rcud', 'rcud', 'rcu', 'r', ''],
  compute: ['rcud', 'rcud', 'rcu', 'r', ''],
  network: ['rcud', 'rcud', 'rcu', 'r', ''],
  kubernetes: ['rcud', 'rcud', 'rcu', 'r', ''],
  apps: ['rcud', 'rcud', 'rcu', 'r', ''],
  workspaces: ['rcud', 'rcud', 'rcu', 'r', ''],
  vpn: ['rcud', 'rcud', 'rcu', 'r', ''],
  billing: ['rcud', '', '', '', 'rcud'],
};

const LETTERS: Record<string, string> = { r: 'read', c: 'create', u: 'update', d: 'delete' };

describe('role permissions', () => {
  it('has the five roles and the documented default table for every category', () => {
    expect(ROLES).toEqual(['admin', 'developer', 'operator', 'viewer', 'billing_manager']);
    expect([...CATEGORIES].sort()).toEqual(Object.keys(README_TABLE).sort());
    for (const [category, perRole] of Object.entries(README_TABLE)) {
      ROLES.forEach((role, i) => {
        expect({ role, category, levels: ROLE_PERMISSIONS[role][category as Category] }).toEqual({
          role,
          category,
          levels: [...perRole[i]].map((letter) => LETTERS[letter]),
        });
      });
    }
  });

  it('gives admins every level of every category', () => {
    for (const category of CATEGORIES) {
      expect(ROLE_PERMISSIONS.admin[category]).toEqual(['read', 'create', 'update', 'delete']);
    }
  });

  it('keeps viewers read-only outside their own tokens', () => {
    expect(allows(ROLE_PERMISSIONS.viewer, 'alerts', 'read')).toBe(true);
    expect(allows(ROLE_PERMISSIONS.viewer, 'alerts', 'create')).toBe(false);
    expect(allows(ROLE_PERMISSIONS.viewer, 'billing', 'read')).toBe(false);
  });

  it('lets billing managers manage billing only', () => {
    expect(allows(ROLE_PERMISSIONS.billing_manager, 'billing', 'delete')).toBe(true);
    expect(allows(ROLE_PERMISSIONS.billing_manager, 'compute', 'read')).toBe(false);
  });

  it('applies per-membership overrides per category', () => {
    const set = effectivePermissions('viewer', { alerts: ['update', 'read'], dns: [] });
    expect(set.alerts).toEqual(['read', 'update']);
    expect(set.dns).toEqual([]);
    expect(set.compute).toEqual(['read']);
  });
});

describe('token scopes', () => {
  it.each(['alerts:read', 'alerts:write', 'rgw:manage', 'alerts:*', 'alert_ingest_tokens:*'])(
    'accepts %s',
    (scope) => expect(isValidScope(scope)).toBe(true),
  );

  it.each([
    'alerts',
    'alerts:admin',
    'nope:read',
    ':read',
    'alerts:read:x',
    'ALERTS:read',
    '*:read',
  ])('refuses %s', (scope) => expect(isValidScope(scope)).toBe(false));

  it('maps scope levels onto permission levels cumulatively', () => {
    expect(scopesAllow(['rgw:read'], 'rgw', 'read')).toBe(true);
    expect(scopesAllow(['rgw:read'], 'rgw', 'create')).toBe(false);
    expect(scopesAllow(['rgw:write'], 'rgw', 'update')).toBe(true);
    expect(scopesAllow(['rgw:write'], 'rgw', 'delete')).toBe(false);
    expect(scopesAllow(['rgw:manage'], 'rgw', 'delete')).toBe(true);
    expect(scopesAllow(['rgw:*'], 'rgw', 'delete')).toBe(true);
    expect(scopesAllow(['dns:*'], 'rgw', 'read')).toBe(false);
  });
});
