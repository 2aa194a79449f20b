/**
 * Axis A of the access model: what a membership may do, and what a static token adds on top
 * (it can only narrow). Levels per category are read, create, update and delete, where delete
 * is the manage-equivalent (custom actions such as minting ingest tokens need it too).
 */
export const ROLES = ['admin', 'developer', 'operator', 'viewer', 'billing_manager'] as const;
export type Role = (typeof ROLES)[number];

export const CATEGORIES = [
  'organization',
  'members',
  'projects',
  'tokens',
  'webhooks',
  'alerts',
  'rgw',
  'dns',
  'compute',
  'network',
  'kubernetes',
  'apps',
  'workspaces',
  'vpn',
  'billing',
] as const;
export type Category = (typeof CATEGORIES)[number];

export const LEVELS = ['read', 'create', 'update', 'delete'] as const;
export type Level = (typeof LEVELS)[number];

export type PermissionSet = Record<Category, Level[]>;
/** Per-membership overrides: a category present replaces the role's levels for it. */
export type PermissionOverrides = Partial<Record<Category, Level[]>>;

const ALL: Level[] = ['read', 'create', 'update', 'delete'];
const OPERATE: Level[] = ['read', 'create', 'update'];
const READ: Level[] = ['read'];
const NONE: Level[] = [];

function table(levels: (category: Category) => Level[]): PermissionSet {
  return Object.fromEntries(CATEGORIES.map((c) => [c, levels(c)])) as PermissionSet;
}

/** The default permissions of each role (documented in the README). */
export const ROLE_PERMISSIONS: Record<Role, PermissionSet> = {
  admin: table(() => ALL),
  // Creating projects is the org admin's (the conventions): developers read them.
  developer: table((c) => {
    if (c === 'organization' || c === 'members' || c === 'projects') return READ;
    if (c === 'billing') return NONE;
    return ALL;
  }),
  operator: table((c) => {
    if (c === 'billing') return NONE;
    if (c === 'tokens') return ALL;
    if (
      [
        'alerts',
        'compute',
        'network',
        'kubernetes',
        'apps',
        'workspaces',
        'dns',
        'rgw',
        'vpn',
        'webhooks',
      ].includes(c)
    ) {
      return OPERATE;
    }
    return READ;
  }),
  viewer: table((c) => {
    if (c === 'billing') return NONE;
    if (c === 'tokens') return ['read', 'create'];
    return READ;
  }),
  billing_manager: table((c) => {
    if (c === 'billing') return ALL;
    if (c === 'tokens') return ['read', 'create'];
    if (c === 'organization' || c === 'members' || c === 'projects') return READ;
    return NONE;
  }),
};

export function effectivePermissions(
  role: Role,
  overrides: PermissionOverrides = {},
): PermissionSet {
  const base = ROLE_PERMISSIONS[role];
  return table((c) =>
    [...(overrides[c] ?? base[c])].sort((a, b) => LEVELS.indexOf(a) - LEVELS.indexOf(b)),
  );
}

export function allows(set: PermissionSet, category: Category, level: Level): boolean {
  return set[category].includes(level);
}

/** Token scopes: `<resource>:<level>`. */
export const SCOPE_LEVELS = ['read', 'write', 'manage', '*'] as const;
export type ScopeLevel = (typeof SCOPE_LEVELS)[number];

/**
 * The alerting API's scope resources: each controller is its own resource, so no umbrella
 * `alerts:*` covers them all (interactive members still need the `alerts` category).
 */
export const ALERTING_SCOPE_RESOURCES = [
  'alert_ingest_tokens',
  'alert_routes',
  'escalation_chains',
  'escalation_steps',
  'on_call_rosters',
  'on_call_roster_members',
  'on_call_roster_phone_contacts',
  'notification_endpoints',
  'on_call_rotations',
  'on_call_overrides',
  'alert_silences',
  'alert_events',
  'maintenance_windows',
  'heartbeats',
] as const;

/**
 * Scope resources of account-wide routes, which no permission category covers: the
 * notification center of the token's own organization (and the platform's broadcasts).
 */
export const ACCOUNT_SCOPE_RESOURCES = ['notifications'] as const;

/** Resources a scope may name: the permission categories plus finer-grained ones. */
export const SCOPE_RESOURCES: readonly string[] = [
  ...CATEGORIES,
  ...ALERTING_SCOPE_RESOURCES,
  ...ACCOUNT_SCOPE_RESOURCES,
];

export const SCOPE_PATTERN = /^([a-z_]+):(read|write|manage|\*)$/;

export function isValidScope(scope: string): boolean {
  const match = SCOPE_PATTERN.exec(scope);
  return match !== null && SCOPE_RESOURCES.includes(match[1]);
}

/**
 * Scope levels are cumulative: read covers GET, write adds create and update, manage adds
 * delete and custom actions; `*` is everything.
 */
const SCOPE_COVERS: Record<ScopeLevel, Level[]> = {
  read: ['read'],
  write: ['read', 'create', 'update'],
  manage: ['read', 'create', 'update', 'delete'],
  '*': ['read', 'create', 'update', 'delete'],
};

export function scopesAllow(scopes: readonly string[], resource: string, level: Level): boolean {
  return scopes.some((scope) => {
    const match = SCOPE_PATTERN.exec(scope);
    return (
      match !== null &&
      match[1] === resource &&
      SCOPE_COVERS[match[2] as ScopeLevel].includes(level)
    );
  });
}

export interface Permission {
  category: Category;
  level: Level;
  /** The scope resource, when finer than the category (e.g. alert_ingest_tokens). */
  scope?: string;
}
