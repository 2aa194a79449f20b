import { describe, expect, it } from '@jest/globals';
import {
  allows,
  CATEGORIES,
  effectivePermissions,
  isValidScope,
  ROLE_PERMISSIONS,
  scopesAllow,
} from './permissions.js';

describe('role permissions', () => {
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
