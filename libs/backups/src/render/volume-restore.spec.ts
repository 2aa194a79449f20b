import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { VolumeBackup, VolumeRestore } from '../api/types.js';
import { RenderError } from './errors.js';
import { restoreScript } from './restic-restore.js';
import {
  renderRestoreJob,
  renderRestorePvc,
  resolveRestoreSource,
  restoreTargetPvcName,
} from './volume-restore.js';

let savedImageRepository: string | undefined;
beforeAll(() => {
  savedImageRepository = process.env.BACKUP_IMAGE_REPOSITORY;
  delete process.env.BACKUP_IMAGE_REPOSITORY;
});
afterAll(() => {
  if (savedImageRepository !== undefined)
    process.env.BACKUP_IMAGE_REPOSITORY = savedImageRepository;
});

const metadata = { name: 'shop-drill', namespace: 'shop', uid: '7d1e-uid', generation: 1 };
const ownerReferences = [
  {
    apiVersion: 'backups.k8s.neutral.com/v1',
    kind: 'VolumeRestore',
    name: 'shop-drill',
    uid: '7d1e-uid',
    controller: true,
    blockOwnerDeletion: true,
  },
];
const jobLabels = {
  'app.kubernetes.io/managed-by': 'backup-operator',
  'backups.k8s.neutral.com/volume-restore': 'shop-drill',
  'backups.k8s.neutral.com/job-type': 'restore',
};
const tolerations = [
  { key: 'restore', operator: 'Equal' as const, value: 'yes', effect: 'NoExecute' as const },
];
const affinity = {
  podAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { labelSelector: { matchLabels: { app: 'shop' } }, topologyKey: 'kubernetes.io/hostname' },
    ],
  },
};

const everyField: VolumeRestore = {
  apiVersion: 'backups.k8s.neutral.com/v1',
  kind: 'VolumeRestore',
  metadata,
  spec: {
    sourceRepository: {
      type: 's3',
      url: 's3:https://s3.example.com/backups/shop',
      secretRef: { name: 'restic-s3' },
      host: 'shop-data',
      snapshotDate: '2025-06-01T02:59:59Z',
    },
    targetPVC: {
      createNew: true,
      name: 'data-restored',
      storageClass: 'fast',
      size: '20Gi',
      accessMode: 'ReadWriteMany',
      annotations: { 'example.com/drill': 'june' },
      labels: { app: 'shop', 'app.kubernetes.io/managed-by': 'someone-else' },
    },
    restoreSpec: { paths: ['/app', "it's"], targetPath: '/old', overwrite: 'if-changed' },
    jobConfig: {
      retries: 2,
      backoffLimit: 1,
      activeDeadlineSeconds: 7200,
      keepSuccessfulJobs: 1,
      keepFailedJobs: 2,
    },
    resources: { requests: { memory: '1Gi', cpu: '500m' }, limits: { memory: '3Gi', cpu: '2' } },
    image: { repository: 'mirror.example/restic', tag: '0.18.0', pullPolicy: 'Never' },
    kubeconfig: { inCluster: true },
    nodeSelector: { 'topology.kubernetes.io/zone': 'eu-1b' },
    tolerations,
    affinity,
  },
};

describe('renderRestoreJob', () => {
  it('renders the Job of an attempt from a spec with every field', () => {
    const job = renderRestoreJob(everyField, {
      ownerReferences: true,
      attempt: 2,
      pvcName: 'data-restored',
    });
    expect(job).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'shop-drill-restore-2',
        namespace: 'shop',
        labels: jobLabels,
        ownerReferences,
      },
      spec: {
        backoffLimit: 1,
        activeDeadlineSeconds: 7200,
        template: {
          metadata: { labels: jobLabels },
          spec: {
            restartPolicy: 'Never',
            automountServiceAccountToken: false,
            securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'restic',
                image: 'mirror.example/restic:0.18.0',
                imagePullPolicy: 'Never',
                command: [
                  'sh',
                  '-c',
                  restoreScript({
                    host: 'shop-data',
                    snapshotDate: '2025-06-01T02:59:59Z',
                    paths: ['/app', "it's"],
                    exclude: [],
                    targetPath: '/old',
                    overwrite: 'if-changed',
                  }),
                ],
                env: [
                  { name: 'RESTIC_REPOSITORY', value: 's3:https://s3.example.com/backups/shop' },
                  { name: 'RESTIC_PROGRESS_FPS', value: '0.2' },
                ],
                envFrom: [{ secretRef: { name: 'restic-s3' } }],
                resources: {
                  requests: { memory: '1Gi', cpu: '500m' },
                  limits: { memory: '3Gi', cpu: '2' },
                },
                volumeMounts: [
                  { name: 'restore', mountPath: '/restore' },
                  { name: 'tmp', mountPath: '/tmp' },
                ],
                terminationMessagePolicy: 'FallbackToLogsOnError',
                securityContext: {
                  runAsUser: 0,
                  runAsGroup: 0,
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: {
                    drop: ['ALL'],
                    add: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID'],
                  },
                },
              },
            ],
            volumes: [
              { name: 'restore', persistentVolumeClaim: { claimName: 'data-restored' } },
              { name: 'tmp', emptyDir: {} },
            ],
            nodeSelector: { 'topology.kubernetes.io/zone': 'eu-1b' },
            tolerations,
            affinity,
          },
        },
      },
    });
  });

  const fromBackup: VolumeRestore = {
    apiVersion: 'backups.k8s.neutral.com/v1',
    kind: 'VolumeRestore',
    metadata,
    spec: {
      sourceBackup: { volumeBackupRef: { name: 'shop-data' }, snapshotId: '4f9a1d0c' },
      targetPVC: { size: '5Gi' },
    },
  };
  const volumeBackup: VolumeBackup = {
    apiVersion: 'backups.k8s.neutral.com/v1',
    kind: 'VolumeBackup',
    metadata: { name: 'shop-data', namespace: 'shop', uid: 'b9e0-uid' },
    spec: {
      volumeClaimRef: { name: 'data' },
      repository: {
        type: 'rest',
        url: 'rest:https://backup.example/shop',
        secretRef: { name: 'restic-rest' },
      },
    },
  };

  it('renders a restore from a VolumeBackup with the defaults, elsewhere without owner', () => {
    const source = resolveRestoreSource(fromBackup, volumeBackup);
    expect(source).toEqual({ repository: volumeBackup.spec!.repository, host: 'shop-data' });
    const job = renderRestoreJob(fromBackup, {
      ownerReferences: false,
      attempt: 1,
      pvcName: 'shop-drill-restored',
      source,
    });
    expect(job).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'shop-drill-restore-1', namespace: 'shop', labels: jobLabels },
      spec: {
        backoffLimit: 6,
        template: {
          metadata: { labels: jobLabels },
          spec: {
            restartPolicy: 'Never',
            automountServiceAccountToken: false,
            securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'restic',
                image: 'registry.neutral.com/public/restic:0.18.1',
                imagePullPolicy: 'Always',
                command: [
                  'sh',
                  '-c',
                  restoreScript({
                    host: 'shop-data',
                    snapshotId: '4f9a1d0c',
                    paths: ['/'],
                    exclude: [],
                    targetPath: '/',
                    overwrite: 'always',
                  }),
                ],
                env: [
                  { name: 'RESTIC_REPOSITORY', value: 'rest:https://backup.example/shop' },
                  { name: 'RESTIC_PROGRESS_FPS', value: '0.2' },
                ],
                envFrom: [{ secretRef: { name: 'restic-rest' } }],
                resources: {
                  requests: { memory: '256Mi', cpu: '200m' },
                  limits: { memory: '1Gi', cpu: '1000m' },
                },
                volumeMounts: [
                  { name: 'restore', mountPath: '/restore' },
                  { name: 'tmp', mountPath: '/tmp' },
                ],
                terminationMessagePolicy: 'FallbackToLogsOnError',
                securityContext: {
                  runAsUser: 0,
                  runAsGroup: 0,
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: {
                    drop: ['ALL'],
                    add: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID'],
                  },
                },
              },
            ],
            volumes: [
              { name: 'restore', persistentVolumeClaim: { claimName: 'shop-drill-restored' } },
              { name: 'tmp', emptyDir: {} },
            ],
          },
        },
      },
    });
  });

  it('uses the VolumeBackup host when it names one', () => {
    const named = { ...volumeBackup, spec: { ...volumeBackup.spec!, host: 'legacy-host' } };
    expect(resolveRestoreSource(fromBackup, named).host).toBe('legacy-host');
  });

  it('needs the VolumeBackup to restore from it', () => {
    expect(() =>
      renderRestoreJob(fromBackup, { ownerReferences: true, attempt: 1, pvcName: 'x' }),
    ).toThrow(
      new RenderError(
        'SourceBackupUnresolved',
        'VolumeBackup shop-data is needed to know the repository to restore from',
      ),
    );
  });

  it('needs a source', () => {
    const nowhere = { ...fromBackup, spec: { targetPVC: { size: '5Gi' } } };
    expect(() => resolveRestoreSource(nowhere)).toThrow(
      new RenderError('SourceMissing', 'set sourceBackup or sourceRepository'),
    );
  });

  it('refuses paths together with exclude patterns, which restic cannot combine', () => {
    const both = {
      ...everyField,
      spec: { ...everyField.spec!, restoreSpec: { paths: ['/app'], exclude: ['*.log'] } },
    };
    let thrown: unknown;
    try {
      renderRestoreJob(both, { ownerReferences: true, attempt: 1, pvcName: 'x' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RenderError);
    expect((thrown as RenderError).reason).toBe('IncludeExcludeConflict');
  });

  it('refuses a snapshot date it cannot read', () => {
    const bad = {
      ...everyField,
      spec: {
        ...everyField.spec!,
        sourceRepository: { ...everyField.spec!.sourceRepository!, snapshotDate: 'last tuesday' },
      },
    };
    expect(() =>
      renderRestoreJob(bad, { ownerReferences: true, attempt: 1, pvcName: 'x' }),
    ).toThrow(
      new RenderError('InvalidSnapshotDate', 'snapshotDate "last tuesday" is not a date-time'),
    );
  });
});

describe('renderRestorePvc', () => {
  it('renders the new claim, without an owner so that deleting the restore keeps the data', () => {
    expect(renderRestorePvc(everyField, { ownerReferences: true })).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'data-restored',
        namespace: 'shop',
        labels: {
          app: 'shop',
          'app.kubernetes.io/managed-by': 'backup-operator',
          'backups.k8s.neutral.com/volume-restore': 'shop-drill',
        },
        annotations: { 'example.com/drill': 'june' },
      },
      spec: {
        accessModes: ['ReadWriteMany'],
        resources: { requests: { storage: '20Gi' } },
        storageClassName: 'fast',
      },
    });
  });

  it('renders a claim with the defaults', () => {
    const minimal = {
      ...everyField,
      spec: { sourceRepository: everyField.spec!.sourceRepository, targetPVC: { size: '1Gi' } },
    };
    expect(renderRestorePvc(minimal)).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'shop-drill-restored',
        namespace: 'shop',
        labels: {
          'app.kubernetes.io/managed-by': 'backup-operator',
          'backups.k8s.neutral.com/volume-restore': 'shop-drill',
        },
      },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
  });

  it('renders nothing when restoring into an existing claim', () => {
    const existing = {
      ...everyField,
      spec: { ...everyField.spec!, targetPVC: { createNew: false, name: 'data' } },
    };
    expect(renderRestorePvc(existing, { ownerReferences: true })).toBeUndefined();
    expect(restoreTargetPvcName(existing)).toBe('data');
  });

  it('needs a size for a new claim', () => {
    const sizeless = { ...everyField, spec: { ...everyField.spec!, targetPVC: {} } };
    expect(() => renderRestorePvc(sizeless, { ownerReferences: true })).toThrow(
      new RenderError(
        'TargetSizeRequired',
        'targetPVC.size is required when targetPVC.createNew is true',
      ),
    );
  });
});

describe('restoreTargetPvcName', () => {
  it('is targetPVC.name, else <name>-restored', () => {
    expect(restoreTargetPvcName(everyField)).toBe('data-restored');
    expect(restoreTargetPvcName({ ...everyField, spec: { targetPVC: {} } })).toBe(
      'shop-drill-restored',
    );
  });
});
