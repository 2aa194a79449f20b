import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { VolumeBackup } from '../api/types.js';
import { RenderError } from './errors.js';
import { backupScript, checkScript } from './restic.js';
import { restoreTestScript } from './restic-restore.js';
import { backupHost, renderVolumeBackup, volumeBackupChildNames } from './volume-backup.js';

let savedImageRepository: string | undefined;
beforeAll(() => {
  savedImageRepository = process.env.BACKUP_IMAGE_REPOSITORY;
  delete process.env.BACKUP_IMAGE_REPOSITORY;
});
afterAll(() => {
  if (savedImageRepository !== undefined)
    process.env.BACKUP_IMAGE_REPOSITORY = savedImageRepository;
});

const repository = {
  type: 's3' as const,
  url: 's3:https://s3.example.com/backups/shop',
  secretRef: { name: 'restic-s3' },
};
const metadata = { name: 'shop-data', namespace: 'shop', uid: 'b9e0c7d2-uid', generation: 3 };
const ownerReferences = [
  {
    apiVersion: 'backups.k8s.neutral.com/v1',
    kind: 'VolumeBackup',
    name: 'shop-data',
    uid: 'b9e0c7d2-uid',
    controller: true,
    blockOwnerDeletion: true,
  },
];
const labels = (jobType?: string) => ({
  'app.kubernetes.io/managed-by': 'backup-operator',
  'backups.k8s.neutral.com/volume-backup': 'shop-data',
  ...(jobType ? { 'backups.k8s.neutral.com/job-type': jobType } : {}),
});
const podSecurityContext = { seccompProfile: { type: 'RuntimeDefault' } };
const containerSecurityContext = (add?: string[]) => ({
  runAsUser: 0,
  runAsGroup: 0,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: add ? { drop: ['ALL'], add } : { drop: ['ALL'] },
});
const restoreCapabilities = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID'];
const tmpVolume = { name: 'tmp', emptyDir: {} };
const tmpMount = { name: 'tmp', mountPath: '/tmp' };
const dataVolume = { name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly: true } };
const dataMount = { name: 'data', mountPath: '/data', readOnly: true };

const tolerations = [
  { key: 'backup', operator: 'Equal' as const, value: 'yes', effect: 'NoSchedule' as const },
  { key: 'spot', operator: 'Exists' as const, effect: 'NoExecute' as const, tolerationSeconds: 60 },
];
const affinity = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }],
    },
  },
};

const everyField: VolumeBackup = {
  apiVersion: 'backups.k8s.neutral.com/v1',
  kind: 'VolumeBackup',
  metadata,
  spec: {
    volumeClaimRef: { name: 'data' },
    schedule: '30 2 * * *',
    repository,
    paths: ['app', "it's here"],
    exclude: ['/app/cache', '*.tmp'],
    host: 'shop-primary',
    retention: { keepLast: 7, keepDaily: 14, keepWeekly: 8, keepMonthly: 12, keepYearly: 2 },
    cache: { enabled: true, size: '2Gi', storageClass: 'fast', accessMode: 'ReadWriteOncePod' },
    resources: { requests: { memory: '512Mi', cpu: '250m' }, limits: { memory: '2Gi', cpu: '2' } },
    image: { repository: 'mirror.example/restic', tag: '0.18.0', pullPolicy: 'IfNotPresent' },
    kubeconfig: { inCluster: true },
    check: {
      enabled: true,
      schedule: '0 5 * * 0',
      readDataSubset: '5%',
      resources: { limits: { memory: '4Gi' } },
    },
    restoreTest: {
      enabled: true,
      schedule: '0 6 * * 0',
      storage: { type: 'pvc', size: '20Gi', storageClass: 'slow' },
      fileCount: 25,
      verifyChecksums: true,
      resources: { requests: { cpu: '100m' } },
    },
    webhooks: {
      success: 'https://hooks.example/ok',
      failure: 'https://hooks.example/fail',
      secretRef: { name: 'hooks', key: 'secret' },
    },
    jobConfig: { keepSuccessfulJobs: 5, keepFailedJobs: 1 },
    suspended: false,
    nodeSelector: { 'topology.kubernetes.io/zone': 'eu-1a' },
    tolerations,
    affinity,
  },
};

const scheduling = {
  nodeSelector: { 'topology.kubernetes.io/zone': 'eu-1a' },
  tolerations,
  affinity,
};

function resticContainer(fields: Record<string, unknown>) {
  return {
    name: 'restic',
    image: 'mirror.example/restic:0.18.0',
    imagePullPolicy: 'IfNotPresent',
    envFrom: [{ secretRef: { name: 'restic-s3' } }],
    terminationMessagePolicy: 'FallbackToLogsOnError',
    ...fields,
  };
}

describe('renderVolumeBackup with every field', () => {
  const { cronJobs, persistentVolumeClaims } = renderVolumeBackup(everyField, {
    ownerReferences: true,
  });
  const history = { successfulJobsHistoryLimit: 5, failedJobsHistoryLimit: 1 };

  it('renders the backup CronJob', () => {
    expect(cronJobs[0]).toEqual({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: {
        name: 'shop-data-backup',
        namespace: 'shop',
        labels: labels('backup'),
        ownerReferences,
      },
      spec: {
        schedule: '30 2 * * *',
        suspend: false,
        concurrencyPolicy: 'Forbid',
        ...history,
        jobTemplate: {
          metadata: { labels: labels('backup') },
          spec: {
            backoffLimit: 2,
            template: {
              metadata: { labels: labels('backup') },
              spec: {
                restartPolicy: 'Never',
                automountServiceAccountToken: false,
                securityContext: podSecurityContext,
                containers: [
                  resticContainer({
                    command: [
                      'sh',
                      '-c',
                      backupScript({
                        host: 'shop-primary',
                        paths: ['app', "it's here"],
                        exclude: ['/app/cache', '*.tmp'],
                        retention: {
                          keepLast: 7,
                          keepDaily: 14,
                          keepWeekly: 8,
                          keepMonthly: 12,
                          keepYearly: 2,
                        },
                        noCache: false,
                      }),
                    ],
                    env: [
                      {
                        name: 'RESTIC_REPOSITORY',
                        value: 's3:https://s3.example.com/backups/shop',
                      },
                      { name: 'RESTIC_CACHE_DIR', value: '/cache' },
                      { name: 'RESTIC_PROGRESS_FPS', value: '0.2' },
                    ],
                    resources: {
                      requests: { memory: '512Mi', cpu: '250m' },
                      limits: { memory: '2Gi', cpu: '2' },
                    },
                    volumeMounts: [dataMount, { name: 'cache', mountPath: '/cache' }, tmpMount],
                    securityContext: containerSecurityContext(['DAC_OVERRIDE']),
                  }),
                ],
                volumes: [
                  dataVolume,
                  { name: 'cache', persistentVolumeClaim: { claimName: 'shop-data-cache' } },
                  tmpVolume,
                ],
                ...scheduling,
              },
            },
          },
        },
      },
    });
  });

  it('renders the check CronJob with its own resources', () => {
    expect(cronJobs[1]).toEqual({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: {
        name: 'shop-data-check',
        namespace: 'shop',
        labels: labels('check'),
        ownerReferences,
      },
      spec: {
        schedule: '0 5 * * 0',
        suspend: false,
        concurrencyPolicy: 'Forbid',
        ...history,
        jobTemplate: {
          metadata: { labels: labels('check') },
          spec: {
            backoffLimit: 1,
            template: {
              metadata: { labels: labels('check') },
              spec: {
                restartPolicy: 'Never',
                automountServiceAccountToken: false,
                securityContext: podSecurityContext,
                containers: [
                  resticContainer({
                    command: ['sh', '-c', checkScript({ readDataSubset: '5%' })],
                    env: [
                      {
                        name: 'RESTIC_REPOSITORY',
                        value: 's3:https://s3.example.com/backups/shop',
                      },
                    ],
                    resources: {
                      requests: { memory: '256Mi', cpu: '200m' },
                      limits: { memory: '4Gi', cpu: '1000m' },
                    },
                    volumeMounts: [tmpMount],
                    securityContext: containerSecurityContext(),
                  }),
                ],
                volumes: [tmpVolume],
                ...scheduling,
              },
            },
          },
        },
      },
    });
  });

  it('renders the restore-test CronJob restoring into its claim and reading the source', () => {
    expect(cronJobs[2]).toEqual({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: {
        name: 'shop-data-restore-test',
        namespace: 'shop',
        labels: labels('restore-test'),
        ownerReferences,
      },
      spec: {
        schedule: '0 6 * * 0',
        suspend: false,
        concurrencyPolicy: 'Forbid',
        ...history,
        jobTemplate: {
          metadata: { labels: labels('restore-test') },
          spec: {
            backoffLimit: 1,
            template: {
              metadata: { labels: labels('restore-test') },
              spec: {
                restartPolicy: 'Never',
                automountServiceAccountToken: false,
                securityContext: podSecurityContext,
                containers: [
                  resticContainer({
                    command: [
                      'sh',
                      '-c',
                      restoreTestScript({
                        host: 'shop-primary',
                        fileCount: 25,
                        verifyChecksums: true,
                      }),
                    ],
                    env: [
                      {
                        name: 'RESTIC_REPOSITORY',
                        value: 's3:https://s3.example.com/backups/shop',
                      },
                    ],
                    resources: {
                      requests: { memory: '256Mi', cpu: '100m' },
                      limits: { memory: '1Gi', cpu: '1000m' },
                    },
                    volumeMounts: [
                      dataMount,
                      { name: 'restore-test', mountPath: '/restore-test' },
                      tmpMount,
                    ],
                    securityContext: containerSecurityContext(restoreCapabilities),
                  }),
                ],
                volumes: [
                  dataVolume,
                  {
                    name: 'restore-test',
                    persistentVolumeClaim: { claimName: 'shop-data-restore-test' },
                  },
                  tmpVolume,
                ],
                ...scheduling,
              },
            },
          },
        },
      },
    });
  });

  it('renders the cache and restore-test claims', () => {
    expect(persistentVolumeClaims).toEqual([
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'shop-data-cache', namespace: 'shop', labels: labels(), ownerReferences },
        spec: {
          accessModes: ['ReadWriteOncePod'],
          resources: { requests: { storage: '2Gi' } },
          storageClassName: 'fast',
        },
      },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: 'shop-data-restore-test',
          namespace: 'shop',
          labels: labels(),
          ownerReferences,
        },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '20Gi' } },
          storageClassName: 'slow',
        },
      },
    ]);
    expect(cronJobs).toHaveLength(3);
  });
});

const minimal: VolumeBackup = {
  apiVersion: 'backups.k8s.neutral.com/v1',
  kind: 'VolumeBackup',
  metadata,
  spec: { volumeClaimRef: { name: 'data' }, repository },
};

/** The backup CronJob of a spec with nothing but the required fields. */
function defaultBackupCronJob(
  changes: { noCache?: boolean; suspend?: boolean; owned?: boolean } = {},
) {
  const cache = !changes.noCache;
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name: 'shop-data-backup',
      namespace: 'shop',
      labels: labels('backup'),
      ...(changes.owned === false ? {} : { ownerReferences }),
    },
    spec: {
      schedule: '0 3 * * *',
      suspend: changes.suspend ?? false,
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      jobTemplate: {
        metadata: { labels: labels('backup') },
        spec: {
          backoffLimit: 2,
          template: {
            metadata: { labels: labels('backup') },
            spec: {
              restartPolicy: 'Never',
              automountServiceAccountToken: false,
              securityContext: podSecurityContext,
              containers: [
                {
                  name: 'restic',
                  image: 'registry.neutral.com/public/restic:0.18.1',
                  imagePullPolicy: 'Always',
                  command: [
                    'sh',
                    '-c',
                    backupScript({ host: 'shop-data', paths: ['/'], exclude: [], noCache: !cache }),
                  ],
                  env: [
                    { name: 'RESTIC_REPOSITORY', value: 's3:https://s3.example.com/backups/shop' },
                    ...(cache ? [{ name: 'RESTIC_CACHE_DIR', value: '/cache' }] : []),
                    { name: 'RESTIC_PROGRESS_FPS', value: '0.2' },
                  ],
                  envFrom: [{ secretRef: { name: 'restic-s3' } }],
                  resources: {
                    requests: { memory: '256Mi', cpu: '200m' },
                    limits: { memory: '1Gi', cpu: '1000m' },
                  },
                  volumeMounts: [
                    dataMount,
                    ...(cache ? [{ name: 'cache', mountPath: '/cache' }] : []),
                    tmpMount,
                  ],
                  terminationMessagePolicy: 'FallbackToLogsOnError',
                  securityContext: containerSecurityContext(['DAC_OVERRIDE']),
                },
              ],
              volumes: [
                dataVolume,
                ...(cache
                  ? [{ name: 'cache', persistentVolumeClaim: { claimName: 'shop-data-cache' } }]
                  : []),
                tmpVolume,
              ],
            },
          },
        },
      },
    },
  };
}

const defaultCacheClaim = (owned = true) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {
    name: 'shop-data-cache',
    namespace: 'shop',
    labels: labels(),
    ...(owned ? { ownerReferences } : {}),
  },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
});

describe('renderVolumeBackup with the defaults', () => {
  it('renders the backup CronJob and the cache claim', () => {
    expect(renderVolumeBackup(minimal, { ownerReferences: true })).toEqual({
      cronJobs: [defaultBackupCronJob()],
      persistentVolumeClaims: [defaultCacheClaim()],
    });
  });

  it('takes the image repository from BACKUP_IMAGE_REPOSITORY', () => {
    process.env.BACKUP_IMAGE_REPOSITORY = 'registry.internal/restic';
    try {
      const { cronJobs } = renderVolumeBackup(minimal, { ownerReferences: true });
      expect(cronJobs[0].spec?.jobTemplate.spec?.template.spec?.containers[0].image).toBe(
        'registry.internal/restic:0.18.1',
      );
    } finally {
      delete process.env.BACKUP_IMAGE_REPOSITORY;
    }
  });

  it('renders no cache claim, mount or directory when the cache is disabled', () => {
    const backup = { ...minimal, spec: { ...minimal.spec!, cache: { enabled: false } } };
    expect(renderVolumeBackup(backup, { ownerReferences: true })).toEqual({
      cronJobs: [defaultBackupCronJob({ noCache: true })],
      persistentVolumeClaims: [],
    });
  });

  it('renders no forget without retention', () => {
    const script =
      defaultBackupCronJob().spec.jobTemplate.spec.template.spec.containers[0].command[2];
    expect(script).not.toContain('forget');
  });

  it('suspends every CronJob when suspended', () => {
    const backup = {
      ...minimal,
      spec: {
        ...minimal.spec!,
        suspended: true,
        check: { enabled: true },
        restoreTest: { enabled: true },
      },
    };
    const { cronJobs } = renderVolumeBackup(backup, { ownerReferences: true });
    expect(cronJobs.map((job) => [job.metadata.name, job.spec?.suspend])).toEqual([
      ['shop-data-backup', true],
      ['shop-data-check', true],
      ['shop-data-restore-test', true],
    ]);
    expect(cronJobs[0]).toEqual(defaultBackupCronJob({ suspend: true }));
  });

  it('sets no owner references for another cluster, where the owner does not exist', () => {
    const remote = { ...minimal, metadata: { name: 'shop-data', namespace: 'shop' } };
    expect(renderVolumeBackup(remote, { ownerReferences: false })).toEqual({
      cronJobs: [defaultBackupCronJob({ owned: false })],
      persistentVolumeClaims: [defaultCacheClaim(false)],
    });
  });

  it('refuses to own objects without the owner uid', () => {
    const unsaved = { ...minimal, metadata: { name: 'shop-data', namespace: 'shop' } };
    expect(() => renderVolumeBackup(unsaved, { ownerReferences: true })).toThrow(
      new RenderError('OwnerWithoutUid', 'VolumeBackup shop-data has no uid to own objects'),
    );
  });

  it('renders a restore test into an emptyDir without reading the source when not verifying', () => {
    const backup = {
      ...minimal,
      spec: {
        ...minimal.spec!,
        check: { enabled: true },
        restoreTest: { enabled: true, verifyChecksums: false },
      },
    };
    const { cronJobs, persistentVolumeClaims } = renderVolumeBackup(backup, {
      ownerReferences: true,
    });
    const pod = cronJobs[2].spec?.jobTemplate.spec?.template.spec;
    expect(pod?.volumes).toEqual([
      { name: 'restore-test', emptyDir: { sizeLimit: '5Gi' } },
      tmpVolume,
    ]);
    expect(pod?.containers[0].volumeMounts).toEqual([
      { name: 'restore-test', mountPath: '/restore-test' },
      tmpMount,
    ]);
    expect(pod?.containers[0].command).toEqual([
      'sh',
      '-c',
      restoreTestScript({ host: 'shop-data', fileCount: 50, verifyChecksums: false }),
    ]);
    const defaults = {
      requests: { memory: '256Mi', cpu: '200m' },
      limits: { memory: '1Gi', cpu: '1000m' },
    };
    expect(pod?.containers[0].resources).toEqual(defaults);
    expect(cronJobs[1].spec?.jobTemplate.spec?.template.spec?.containers[0].resources).toEqual(
      defaults,
    );
    expect(cronJobs[1].spec?.schedule).toBe('0 4 * * *');
    expect(cronJobs[2].spec?.schedule).toBe('0 5 * * *');
    expect(persistentVolumeClaims.map((claim) => claim.metadata.name)).toEqual(['shop-data-cache']);
  });
});

describe('names and host', () => {
  it('names the children after the VolumeBackup', () => {
    expect(volumeBackupChildNames('shop-data')).toEqual({
      backupCronJob: 'shop-data-backup',
      checkCronJob: 'shop-data-check',
      restoreTestCronJob: 'shop-data-restore-test',
      cacheClaim: 'shop-data-cache',
      restoreTestClaim: 'shop-data-restore-test',
    });
  });

  it('records snapshots under the given host, else <namespace>-<claim>', () => {
    expect(backupHost(minimal)).toBe('shop-data');
    expect(backupHost(everyField)).toBe('shop-primary');
  });
});
