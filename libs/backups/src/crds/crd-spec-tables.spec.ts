import { describe, expect, it } from '@jest/globals';
import { loadBackupCrds } from './index.js';
import type { JsonSchema } from '@platform/kube';
import { schemaAt, schemaNodes } from '@platform/kube';

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

// The spec's tables ("Shared backup types", the three spec tables and "Limits"), transcribed.
const LOCAL_OBJECT_REFERENCE: Table = { '': { required: ['name'] } };
const SECRET_REFERENCE: Table = { '': { required: ['name'] } };
const REPOSITORY_TYPES = ['s3', 'gcs', 'azure', 'local', 'sftp', 'rest'];
const REPOSITORY_SPEC: Table = {
  '': { required: ['type', 'url', 'secretRef'] },
  type: { enum: REPOSITORY_TYPES },
  ...under('secretRef', SECRET_REFERENCE),
};
const RETENTION_SPEC: Table = {
  keepLast: { minimum: 1 },
  keepDaily: { minimum: 0 },
  keepWeekly: { minimum: 0 },
  keepMonthly: { minimum: 0 },
  keepYearly: { minimum: 0 },
};
const CACHE_SPEC: Table = {
  enabled: { default: true },
  size: { default: '5Gi' },
  accessMode: { default: 'ReadWriteOnce' },
};
const resourceRequirements = (limitsMemory = '1Gi', limitsCpu = '1000m'): Table => ({
  'requests.memory': { default: '256Mi' },
  'requests.cpu': { default: '200m' },
  'limits.memory': { default: limitsMemory },
  'limits.cpu': { default: limitsCpu },
});
/**
 * The spec's repository default `{registry_host}/public/<backup-tool-image>` depends on where the
 * platform runs, so the schema has none: the operator fills it from BACKUP_IMAGE_REPOSITORY.
 */
const imageSpec = (pullPolicy = 'Always'): Table => ({
  tag: { default: '0.18.1' },
  pullPolicy: { enum: ['Always', 'IfNotPresent', 'Never'], default: pullPolicy },
});
const KUBECONFIG_SPEC: Table = {
  inCluster: { default: true },
  secretRef: { required: ['name'] },
  'secretRef.key': { default: 'kubeconfig' },
};
const CHECK_SPEC: Table = {
  enabled: { default: false },
  schedule: { default: '0 4 * * *' },
  readDataSubset: { default: '10%' },
  ...under('resources', resourceRequirements()),
};
const RESTORE_TEST_SPEC: Table = {
  enabled: { default: false },
  schedule: { default: '0 5 * * *' },
  'storage.type': { enum: ['emptyDir', 'pvc'], default: 'emptyDir' },
  'storage.size': { default: '5Gi' },
  fileCount: { default: 50, minimum: 1, maximum: 500 },
  verifyChecksums: { default: true },
  ...under('resources', resourceRequirements()),
};
const JOB_CONFIG_SPEC: Table = {
  keepSuccessfulJobs: { default: 3, minimum: 0, maximum: 10 },
  keepFailedJobs: { default: 3, minimum: 0, maximum: 10 },
};
const TOLERATION: Table = {
  operator: { enum: ['Exists', 'Equal'] },
  effect: { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] },
};

const VOLUME_BACKUP_SPEC: Table = {
  '': { required: ['volumeClaimRef', 'repository'] },
  ...under('volumeClaimRef', LOCAL_OBJECT_REFERENCE),
  schedule: { default: '0 3 * * *' },
  ...under('repository', REPOSITORY_SPEC),
  paths: { default: ['/'] },
  ...under('retention', RETENTION_SPEC),
  ...under('cache', CACHE_SPEC),
  ...under('resources', resourceRequirements()),
  ...under('image', imageSpec()),
  ...under('kubeconfig', KUBECONFIG_SPEC),
  ...under('check', CHECK_SPEC),
  ...under('restoreTest', RESTORE_TEST_SPEC),
  ...under('jobConfig', JOB_CONFIG_SPEC),
  suspended: { default: false },
  ...under('tolerations[]', TOLERATION),
};

const VOLUME_RESTORE_SPEC: Table = {
  '': { required: ['targetPVC'] },
  ...under('sourceBackup.volumeBackupRef', LOCAL_OBJECT_REFERENCE),
  'sourceRepository.type': { enum: REPOSITORY_TYPES },
  ...under('sourceRepository', { '': { required: ['type', 'url', 'secretRef'] } }),
  ...under('sourceRepository.secretRef', SECRET_REFERENCE),
  'targetPVC.createNew': { default: true },
  'targetPVC.accessMode': { default: 'ReadWriteOnce' },
  'restoreSpec.paths': { default: ['/'] },
  'restoreSpec.targetPath': { default: '/' },
  'restoreSpec.overwrite': {
    enum: ['always', 'if-changed', 'if-newer', 'never'],
    default: 'always',
  },
  'jobConfig.retries': { default: 3, minimum: 0, maximum: 10 },
  'jobConfig.backoffLimit': { default: 6, minimum: 0 },
  'jobConfig.activeDeadlineSeconds': { minimum: 1 },
  ...under('jobConfig', JOB_CONFIG_SPEC),
  ...under('resources', resourceRequirements()),
  ...under('image', imageSpec()),
  ...under('kubeconfig', KUBECONFIG_SPEC),
  ...under('tolerations[]', TOLERATION),
};

const VOLUME_SNAPSHOT_BACKUP_SPEC: Table = {
  '': { required: ['volumeClaimRef', 'repository'] },
  ...under('volumeClaimRef', LOCAL_OBJECT_REFERENCE),
  ...under('openstack.credentialsSecretRef', SECRET_REFERENCE),
  'openstack.autoDiscover': { default: true },
  'snapshot.force': { default: true },
  'snapshot.timeout': { default: 600 },
  'snapshot.namePrefix': { default: 'backup' },
  'snapshot.retention.keepLast': { default: 3 },
  'snapshot.retention.keepForDays': { default: 7 },
  'temporaryVolume.timeout': { default: 300 },
  ...under('repository', REPOSITORY_SPEC),
  paths: { default: ['/'] },
  ...under('retention', RETENTION_SPEC),
  'cache.enabled': { default: false },
  'cache.size': { default: '1Gi' },
  ...under('resources', resourceRequirements('2Gi', '2000m')),
  ...under('image', imageSpec('IfNotPresent')),
  ...under('tolerations[]', TOLERATION),
};

// Constraints the schemas add to the tables, each because the value could never work.
const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
// local and sftp cannot work from the Job pods (no repository volume, no SSH key file): the
// reconciled kinds refuse them rather than accept a backup that never lands anywhere.
const REACHABLE_REPOSITORY_TYPES = ['s3', 'gcs', 'azure', 'rest'];
const ADDED: Record<string, Table> = {
  volumebackups: {
    'cache.accessMode': { enum: ACCESS_MODES },
    'repository.type': { enum: REACHABLE_REPOSITORY_TYPES },
    // The conventions' "Backup operator choices": deliveries are signed with a Secret's key.
    webhooks: { required: ['secretRef'] },
    'webhooks.secretRef': { required: ['name'] },
    'webhooks.secretRef.key': { default: 'secret' },
  },
  volumerestores: {
    'targetPVC.accessMode': { enum: ACCESS_MODES },
    'sourceRepository.type': { enum: REACHABLE_REPOSITORY_TYPES },
    // a backup source without the backup it names has nothing to restore from
    sourceBackup: { required: ['volumeBackupRef'] },
  },
  volumesnapshotbackups: {
    'snapshot.timeout': { minimum: 1 },
    'temporaryVolume.timeout': { minimum: 1 },
    'snapshot.retention.keepLast': { minimum: 0 },
    'snapshot.retention.keepForDays': { minimum: 0 },
  },
};

/**
 * The spec leaves S3Backup's fields open; its schema is built from the shared types above, as
 * VolumeBackup's, with a source bucket and the image of the tool that copies it.
 */
const S3_BACKUP_SPEC: Table = {
  '': { required: ['source', 'repository'] },
  source: { required: ['bucket', 'endpoint'] },
  ...under('source.credentialsSecretRef', SECRET_REFERENCE),
  'source.forcePathStyle': { default: true },
  schedule: { default: '0 3 * * *' },
  ...under('repository', REPOSITORY_SPEC),
  'repository.type': { enum: REACHABLE_REPOSITORY_TYPES },
  ...under('retention', RETENTION_SPEC),
  ...under('cache', CACHE_SPEC),
  'cache.accessMode': { enum: ACCESS_MODES, default: 'ReadWriteOnce' },
  ...under('resources', resourceRequirements()),
  ...under('image', imageSpec()),
  'syncImage.repository': { default: 'rclone/rclone' },
  'syncImage.tag': { default: '1.75.1' },
  'syncImage.pullPolicy': { enum: ['Always', 'IfNotPresent', 'Never'], default: 'IfNotPresent' },
  webhooks: { required: ['secretRef'] },
  'webhooks.secretRef': { required: ['name'] },
  'webhooks.secretRef.key': { default: 'secret' },
  ...under('jobConfig', JOB_CONFIG_SPEC),
  suspended: { default: false },
  ...under('tolerations[]', TOLERATION),
};

const SPEC_TABLES: Record<string, Table> = {
  s3backups: S3_BACKUP_SPEC,
  volumebackups: VOLUME_BACKUP_SPEC,
  volumerestores: VOLUME_RESTORE_SPEC,
  volumesnapshotbackups: VOLUME_SNAPSHOT_BACKUP_SPEC,
};

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

function merged(...tables: Table[]): Table {
  const result: Table = {};
  for (const table of tables) {
    for (const [path, rule] of Object.entries(table)) result[path] = { ...result[path], ...rule };
  }
  return result;
}

const crds = loadBackupCrds();
const rootOf = (plural: string) =>
  crds.find((crd) => crd.spec.names.plural === plural)!.spec.versions[0].schema.openAPIV3Schema;
const specSchema = (plural: string) => rootOf(plural).properties!.spec;

describe('CRD schemas against the spec tables', () => {
  it.each(Object.keys(SPEC_TABLES))(
    '%s: the defaults, enums, bounds and required fields are exactly the tables',
    (plural) => {
      const expected = merged(SPEC_TABLES[plural], ADDED[plural] ?? {});
      expect(constraintsOf(specSchema(plural))).toEqual(expected);
    },
  );

  it('the parent objects of defaulted fields default to an empty object', () => {
    const parents: Record<string, string[]> = {
      volumebackups: [
        'cache',
        'resources',
        'resources.requests',
        'resources.limits',
        'image',
        'kubeconfig',
        'check',
        'restoreTest',
        'restoreTest.storage',
        'jobConfig',
      ],
      volumerestores: ['restoreSpec', 'jobConfig', 'resources', 'image', 'kubeconfig'],
      s3backups: [
        'cache',
        'resources',
        'resources.requests',
        'resources.limits',
        'image',
        'syncImage',
        'jobConfig',
      ],
      volumesnapshotbackups: [
        'openstack',
        'snapshot',
        'snapshot.retention',
        'temporaryVolume',
        'cache',
        'resources',
        'image',
      ],
    };
    for (const [plural, paths] of Object.entries(parents)) {
      for (const path of paths) {
        expect({ plural, path, default: schemaAt(specSchema(plural), path)?.default }).toEqual({
          plural,
          path,
          default: {},
        });
      }
    }
  });

  it('check and restore test resources stay unset when absent, so those jobs take the backup job resources', () => {
    const schema = specSchema('volumebackups');
    for (const path of ['check.resources', 'restoreTest.resources']) {
      expect(schemaAt(schema, path)).toMatchObject({ type: 'object' });
      expect(schemaAt(schema, path)?.default).toBeUndefined();
      expect(schemaAt(schema, `${path}.requests`)?.default).toEqual({});
    }
  });

  it('targetPVC is required, so its defaults apply whenever a restore exists', () => {
    const schema = specSchema('volumerestores');
    expect(schema.required).toContain('targetPVC');
    expect(schemaAt(schema, 'targetPVC')?.default).toBeUndefined();
  });

  it('the status phases are the spec phases', () => {
    const phases = (plural: string) => schemaAt(rootOf(plural), 'status.phase')?.enum;
    expect(phases('volumebackups')).toEqual(['Pending', 'Running', 'Succeeded', 'Failed']);
    // S3Backup runs as VolumeBackup does: one backup Job per schedule.
    expect(phases('s3backups')).toEqual(['Pending', 'Running', 'Succeeded', 'Failed']);
    expect(phases('volumerestores')).toEqual([
      'Pending',
      'Running',
      'Succeeded',
      'Failed',
      'Retrying',
    ]);
    expect(phases('volumesnapshotbackups')).toEqual([
      'Pending',
      'CreatingSnapshot',
      'CreatingVolume',
      'Backup',
      'Cleanup',
      'Succeeded',
      'Failed',
    ]);
  });

  it('restore progress is bounded to 0..100 percent', () => {
    expect(schemaAt(rootOf('volumerestores'), 'status.progress.percentComplete')).toMatchObject({
      type: 'number',
      minimum: 0,
      maximum: 100,
    });
  });
});
