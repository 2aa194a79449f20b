import { describe, expect, it } from '@jest/globals';
import { type JsonSchema, schemaNodes } from '@platform/kube';
import { groupwareCrds } from './manifests.js';

/** What the API server enforces or fills in for one field. */
interface Constraint {
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  required?: string[];
}
type Table = Record<string, Constraint>;

const under = (prefix: string, table: Table): Table =>
  Object.fromEntries(
    Object.entries(table).map(([path, rule]) => [path ? `${prefix}.${path}` : prefix, rule]),
  );

// The spec's GroupwareInstance tables ("GroupwareInstance spec", "Database", data backup),
// transcribed. `replicas` has no schema default: the operator applies 1 only when neither the
// instance nor its profile sets it.
const INSTANCE_SPEC: Table = {
  version: { default: '29' },
  'database.type': { enum: ['postgresql', 'mysql'], default: 'postgresql' },
  'database.managed': { default: false },
  'database.port': { default: 5432 },
  'database.name': { default: 'nextcloud' },
  'database.user': { default: 'nextcloud' },
  'backups.data.enabled': { default: false },
  'backups.data.schedule': { default: '0 3 * * *' },
  'backups.data.deleteOnCleanup': { default: false },
};

// Constraints the schemas add to the tables, each because the value could never work.
const PROBE: Table = {
  initialDelaySeconds: { minimum: 0 },
  periodSeconds: { minimum: 1 },
  timeoutSeconds: { minimum: 1 },
  failureThreshold: { minimum: 1 },
  successThreshold: { minimum: 1 },
};
const CONDITIONS: Table = {
  'conditions[]': { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
  'conditions[].status': { enum: ['True', 'False', 'Unknown'] },
  'conditions[].observedGeneration': { minimum: 0 },
};
const TALK_BACKEND: Table = {
  '': { required: ['url', 'secretRef'] },
  secretRef: { required: ['name'] },
  'secretRef.key': { default: 'secret' },
  verifyTls: { default: true },
};
const APPS: Table = {
  'spreed.turnServers[]': { required: ['server', 'secretRef'] },
  'spreed.turnServers[].schemes': { enum: ['turn', 'turns', 'turn,turns'], default: 'turn' },
  'spreed.turnServers[].protocols': { enum: ['udp', 'tcp', 'udp,tcp'], default: 'udp,tcp' },
  'spreed.turnServers[].secretRef': { required: ['name'] },
  'spreed.turnServers[].secretRef.key': { default: 'secret' },
  ...under('spreed.signalingServers[]', TALK_BACKEND),
  ...under('spreed.recording', TALK_BACKEND),
  'custom[]': { required: ['appId', 'enabled'] },
};
const INSTANCE_ADDED: Table = {
  replicas: { minimum: 1 },
  'database.port': { minimum: 1, maximum: 65535 },
  'database.postgres.replicas': { minimum: 1 },
  ...under('livenessProbe', PROBE),
  ...under('readinessProbe', PROBE),
  ...under('startupProbe', PROBE),
  ...under('apps', APPS),
};

const withoutDefaults = (table: Table): Table =>
  Object.fromEntries(
    Object.entries(table)
      .map(([path, { default: _default, ...rule }]) => [path, rule] as const)
      .filter(([, rule]) => Object.keys(rule).length > 0),
  );

// 5-groupware-operator.md fixes the pool, Groupware and Talk server fields.
const SPEC_TABLES: Record<string, Table> = {
  GroupwareInstance: merged(INSTANCE_SPEC, INSTANCE_ADDED),
  GroupwareProfile: { 'defaults.replicaCount': { minimum: 1 } },
  GroupwarePool: {
    '': { required: ['namespace'] },
    size: { default: 1, minimum: 0, maximum: 50 },
    // The instances made from the template get the defaults when they are created.
    ...under('template', withoutDefaults(merged(INSTANCE_SPEC, INSTANCE_ADDED))),
  },
  Groupware: { '': { required: ['profile'] }, ...under('apps', APPS) },
  SignalingServer: {
    ...TALK_BACKEND,
    secretRef: { required: ['name', 'namespace'] },
  },
  RecordingServer: {
    ...TALK_BACKEND,
    secretRef: { required: ['name', 'namespace'] },
  },
};

/** What each instance has registered: the URL to remove when it changes. */
const TALK_REGISTRATIONS: Table = { 'registrations[]': { required: ['instance', 'url'] } };

const STATUS_TABLES: Record<string, Table> = {
  GroupwareInstance: {
    phase: { enum: ['Pending', 'Creating', 'Ready', 'Updating', 'Failed'] },
    'versionResolution.resolvedBy': { enum: ['builtin'] },
    ...CONDITIONS,
  },
  Groupware: { phase: { enum: ['Pending', 'Creating', 'Ready', 'Failed'] }, ...CONDITIONS },
  GroupwarePool: {
    ready: { minimum: 0 },
    claimed: { minimum: 0 },
    creating: { minimum: 0 },
    ...CONDITIONS,
  },
  GroupwareProfile: { instances: { minimum: 0 }, ...CONDITIONS },
  SignalingServer: { ...CONDITIONS, ...TALK_REGISTRATIONS },
  RecordingServer: { ...CONDITIONS, ...TALK_REGISTRATIONS },
};

function merged(...tables: Table[]): Table {
  const result: Table = {};
  for (const table of tables) {
    for (const [path, rule] of Object.entries(table)) result[path] = { ...result[path], ...rule };
  }
  return result;
}

const isEmptyObjectDefault = (schema: JsonSchema) =>
  schema.type === 'object' &&
  typeof schema.default === 'object' &&
  schema.default !== null &&
  Object.keys(schema.default).length === 0;

/** Every default (but the `{}` of parent objects), enum, minimum, maximum and required list. */
function constraintsOf(schema: JsonSchema): Table {
  const table: Table = {};
  for (const { path, schema: node } of schemaNodes(schema)) {
    const rule: Constraint = {};
    if (node.default !== undefined && !isEmptyObjectDefault(node)) rule.default = node.default;
    if (node.enum) rule.enum = node.enum;
    if (node.minimum !== undefined) rule.minimum = node.minimum;
    if (node.maximum !== undefined) rule.maximum = node.maximum;
    if (node.required) rule.required = node.required;
    if (Object.keys(rule).length > 0) table[path] = rule;
  }
  return table;
}

const rootOf = (kind: string) =>
  groupwareCrds().find((crd) => crd.spec.names.kind === kind)!.spec.versions[0].schema
    .openAPIV3Schema;

describe('groupware CRD schemas against the spec tables', () => {
  it.each(Object.keys(SPEC_TABLES))(
    '%s spec: the defaults, enums, bounds and required fields are exactly the tables',
    (kind) => {
      expect(constraintsOf(rootOf(kind).properties!.spec)).toEqual(SPEC_TABLES[kind]);
    },
  );

  it.each(Object.keys(STATUS_TABLES))('%s status: phases and bounds', (kind) => {
    expect(constraintsOf(rootOf(kind).properties!.status)).toEqual(STATUS_TABLES[kind]);
  });

  it('the parents of defaulted instance fields default to an empty object', () => {
    const spec = rootOf('GroupwareInstance').properties!.spec;
    const emptyDefaults = schemaNodes(spec)
      .filter(({ schema }) => isEmptyObjectDefault(schema))
      .map(({ path }) => path);
    expect(emptyDefaults).toEqual(['database', 'backups', 'backups.data']);
  });

  it('the apps are the well-known ones, richdocuments, spreed and custom', () => {
    const apps = rootOf('GroupwareInstance').properties!.spec.properties!.apps.properties!;
    expect(Object.keys(apps)).toEqual([
      'calendar',
      'contacts',
      'deck',
      'tasks',
      'notes',
      'mail',
      'collectives',
      'whiteboard',
      'forms',
      'admin_audit',
      'groupfolders',
      'photos',
      'previewgenerator',
      'richdocuments',
      'spreed',
      'custom',
    ]);
    expect(Object.keys(apps.richdocuments.properties!)).toEqual([
      'enabled',
      'wopiUrl',
      'wopiAllowlist',
    ]);
    expect(Object.keys(apps.spreed.properties!)).toEqual([
      'enabled',
      'stunServers',
      'turnServers',
      'signalingServers',
      'recording',
    ]);
    expect(Object.keys(apps.custom.items!.properties!)).toEqual(['appId', 'enabled']);
  });

  it('the instance spec has exactly the fields of the spec table', () => {
    expect(Object.keys(rootOf('GroupwareInstance').properties!.spec.properties!)).toEqual([
      'profile',
      'version',
      'replicas',
      'ingress',
      'database',
      'redis',
      's3',
      'admin',
      'mail',
      'oidc',
      'resources',
      'persistence',
      'cronjob',
      'livenessProbe',
      'readinessProbe',
      'startupProbe',
      'license_key',
      'apps',
      'backups',
      'helm',
    ]);
  });
});
