import { describe, expect, it } from '@jest/globals';
import {
  defaultImageRepository,
  withResourceDefaults,
  withVolumeBackupDefaults,
  withVolumeRestoreDefaults,
} from './defaults.js';
import {
  BACKUP_API_VERSION,
  S3BackupKind,
  VolumeBackupKind,
  VolumeRestoreKind,
  VolumeSnapshotBackupKind,
} from './kinds.js';
import type { ResourceList, VolumeBackupSpec, VolumeRestoreSpec } from './types.js';

const noEnv = {};
const repository = {
  type: 's3' as const,
  url: 's3:https://s3.example.com/backups/app',
  secretRef: { name: 'restic-credentials' },
};

const defaultResources = {
  requests: { memory: '256Mi', cpu: '200m' },
  limits: { memory: '1Gi', cpu: '1000m' },
};

describe('backup kinds', () => {
  it('are namespaced kinds of backups.k8s.neutral.com/v1', () => {
    expect(BACKUP_API_VERSION).toBe('backups.k8s.neutral.com/v1');
    expect([VolumeBackupKind, VolumeRestoreKind, VolumeSnapshotBackupKind, S3BackupKind]).toEqual([
      {
        group: 'backups.k8s.neutral.com',
        version: 'v1',
        kind: 'VolumeBackup',
        plural: 'volumebackups',
        namespaced: true,
      },
      {
        group: 'backups.k8s.neutral.com',
        version: 'v1',
        kind: 'VolumeRestore',
        plural: 'volumerestores',
        namespaced: true,
      },
      {
        group: 'backups.k8s.neutral.com',
        version: 'v1',
        kind: 'VolumeSnapshotBackup',
        plural: 'volumesnapshotbackups',
        namespaced: true,
      },
      {
        group: 'backups.k8s.neutral.com',
        version: 'v1',
        kind: 'S3Backup',
        plural: 's3backups',
        namespaced: true,
      },
    ]);
  });
});

describe('withVolumeBackupDefaults', () => {
  it('fills every default of the spec tables into a minimal spec', () => {
    const spec: VolumeBackupSpec = { volumeClaimRef: { name: 'data' }, repository };
    expect(withVolumeBackupDefaults(spec, 'shop', noEnv)).toEqual({
      volumeClaimRef: { name: 'data' },
      repository,
      schedule: '0 3 * * *',
      paths: ['/'],
      host: 'shop-data',
      cache: { enabled: true, size: '5Gi', accessMode: 'ReadWriteOnce' },
      resources: defaultResources,
      image: {
        repository: 'registry.neutral.com/public/restic',
        tag: '0.18.1',
        pullPolicy: 'Always',
      },
      kubeconfig: { inCluster: true },
      check: { enabled: false, schedule: '0 4 * * *', readDataSubset: '10%' },
      restoreTest: {
        enabled: false,
        schedule: '0 5 * * *',
        storage: { type: 'emptyDir', size: '5Gi' },
        fileCount: 50,
        verifyChecksums: true,
      },
      jobConfig: { keepSuccessfulJobs: 3, keepFailedJobs: 3 },
      suspended: false,
    });
  });

  it('keeps every value that is given', () => {
    const spec: Required<VolumeBackupSpec> = {
      volumeClaimRef: { name: 'data', namespace: 'shop' },
      schedule: '15 1 * * 0',
      repository,
      paths: ['app', 'db'],
      exclude: ['*.tmp'],
      host: 'shop-primary',
      retention: { keepLast: 3, keepDaily: 7 },
      cache: { enabled: false, size: '1Gi', storageClass: 'fast', accessMode: 'ReadWriteMany' },
      resources: { requests: { memory: '1Gi', cpu: '1' }, limits: { memory: '2Gi', cpu: '2' } },
      image: { repository: 'mirror.example/restic', tag: '0.17.3', pullPolicy: 'IfNotPresent' },
      kubeconfig: { inCluster: false, secretRef: { name: 'remote', namespace: 'ops', key: 'cfg' } },
      check: {
        enabled: true,
        schedule: '0 6 * * *',
        readDataSubset: '1/5',
        resources: { limits: { memory: '4Gi' } },
      },
      restoreTest: {
        enabled: true,
        schedule: '0 7 * * *',
        storage: { type: 'pvc', size: '10Gi', storageClass: 'slow' },
        fileCount: 5,
        verifyChecksums: false,
        resources: { requests: { cpu: '100m' } },
      },
      webhooks: {
        success: 'https://hooks.example/ok',
        failure: 'https://hooks.example/fail',
        secretRef: { name: 'hooks', key: 'secret' },
      },
      jobConfig: { keepSuccessfulJobs: 0, keepFailedJobs: 10 },
      suspended: true,
      nodeSelector: { zone: 'a' },
      tolerations: [{ key: 'backup', operator: 'Exists', effect: 'NoSchedule' }],
      affinity: { nodeAffinity: {} },
    };
    expect(withVolumeBackupDefaults(spec, 'shop', { BACKUP_IMAGE_REPOSITORY: 'x/y' })).toEqual(
      spec,
    );
  });

  it('fills the missing parts of partly given objects and treats null as absent', () => {
    const spec = {
      volumeClaimRef: { name: 'data' },
      repository,
      schedule: null,
      cache: { enabled: false, storageClass: null },
      resources: { requests: { memory: '1Gi', cpu: null } },
      image: { tag: '0.17.0' },
      kubeconfig: { secretRef: { name: 'remote' } },
      check: { enabled: true },
      restoreTest: { storage: { type: 'pvc' } },
      jobConfig: { keepFailedJobs: 1 },
    } as unknown as VolumeBackupSpec;
    const defaulted = withVolumeBackupDefaults(spec, 'shop', noEnv);
    expect(defaulted.schedule).toBe('0 3 * * *');
    expect(defaulted.cache).toEqual({ enabled: false, size: '5Gi', accessMode: 'ReadWriteOnce' });
    expect(defaulted.resources).toEqual({
      requests: { memory: '1Gi', cpu: '200m' },
      limits: { memory: '1Gi', cpu: '1000m' },
    });
    expect(defaulted.image).toEqual({
      repository: 'registry.neutral.com/public/restic',
      tag: '0.17.0',
      pullPolicy: 'Always',
    });
    expect(defaulted.kubeconfig).toEqual({
      inCluster: true,
      secretRef: { name: 'remote', key: 'kubeconfig' },
    });
    expect(defaulted.check).toEqual({
      enabled: true,
      schedule: '0 4 * * *',
      readDataSubset: '10%',
    });
    expect(defaulted.restoreTest.storage).toEqual({ type: 'pvc', size: '5Gi' });
    expect(defaulted.jobConfig).toEqual({ keepSuccessfulJobs: 3, keepFailedJobs: 1 });
  });

  it('leaves the host unset when the namespace is not known', () => {
    const defaulted = withVolumeBackupDefaults(
      { volumeClaimRef: { name: 'data' }, repository },
      undefined,
      noEnv,
    );
    expect('host' in defaulted).toBe(false);
  });

  it('does not change the spec it was given', () => {
    const spec: VolumeBackupSpec = { volumeClaimRef: { name: 'data' }, repository, cache: {} };
    withVolumeBackupDefaults(spec, 'shop', noEnv);
    expect(spec).toEqual({ volumeClaimRef: { name: 'data' }, repository, cache: {} });
  });
});

describe('defaultImageRepository', () => {
  it('takes BACKUP_IMAGE_REPOSITORY, else the public mirror', () => {
    expect(defaultImageRepository({ BACKUP_IMAGE_REPOSITORY: 'registry.local/restic' })).toBe(
      'registry.local/restic',
    );
    expect(defaultImageRepository({ BACKUP_IMAGE_REPOSITORY: '  ' })).toBe(
      'registry.neutral.com/public/restic',
    );
    expect(defaultImageRepository({})).toBe('registry.neutral.com/public/restic');
  });
});

describe('withResourceDefaults', () => {
  it('keeps extra resources and fills cpu and memory', () => {
    // The schema names cpu and memory only; a resource it does not name is still handed on.
    const limits = { 'ephemeral-storage': '2Gi' } as ResourceList;
    expect(withResourceDefaults({ limits })).toEqual({
      requests: { memory: '256Mi', cpu: '200m' },
      limits: { memory: '1Gi', cpu: '1000m', 'ephemeral-storage': '2Gi' },
    });
  });
});

describe('withVolumeRestoreDefaults', () => {
  it('fills every default of the spec tables into a minimal spec', () => {
    const spec: VolumeRestoreSpec = {
      sourceBackup: { volumeBackupRef: { name: 'shop-data' } },
      targetPVC: { size: '10Gi' },
    };
    expect(
      withVolumeRestoreDefaults(spec, { BACKUP_IMAGE_REPOSITORY: 'registry.local/restic' }),
    ).toEqual({
      sourceBackup: { volumeBackupRef: { name: 'shop-data' } },
      targetPVC: { size: '10Gi', createNew: true, accessMode: 'ReadWriteOnce' },
      restoreSpec: { paths: ['/'], targetPath: '/', overwrite: 'always' },
      jobConfig: { retries: 3, backoffLimit: 6, keepSuccessfulJobs: 3, keepFailedJobs: 3 },
      resources: defaultResources,
      image: { repository: 'registry.local/restic', tag: '0.18.1', pullPolicy: 'Always' },
      kubeconfig: { inCluster: true },
    });
  });

  it('keeps every value that is given', () => {
    const spec: Required<VolumeRestoreSpec> = {
      sourceBackup: {
        volumeBackupRef: { name: 'shop-data' },
        snapshotDate: '2025-06-01T03:00:00Z',
      },
      sourceRepository: {
        ...repository,
        host: 'shop-data',
        snapshotId: '4f9a1d0c',
      },
      targetPVC: {
        createNew: false,
        name: 'restored',
        storageClass: 'fast',
        size: '20Gi',
        accessMode: 'ReadWriteMany',
        annotations: { note: 'drill' },
        labels: { app: 'shop' },
      },
      restoreSpec: {
        paths: ['/app'],
        exclude: [],
        targetPath: '/restore-here',
        overwrite: 'if-newer',
      },
      jobConfig: {
        retries: 0,
        backoffLimit: 0,
        activeDeadlineSeconds: 3600,
        keepSuccessfulJobs: 1,
        keepFailedJobs: 2,
      },
      resources: { requests: { memory: '1Gi', cpu: '1' }, limits: { memory: '2Gi', cpu: '2' } },
      image: { repository: 'mirror.example/restic', tag: '0.18.0', pullPolicy: 'Never' },
      kubeconfig: { inCluster: false, secretRef: { name: 'remote', key: 'config' } },
      nodeSelector: { zone: 'b' },
      tolerations: [{ key: 'restore', operator: 'Equal', value: 'yes', effect: 'NoExecute' }],
      affinity: { podAffinity: {} },
    };
    expect(withVolumeRestoreDefaults(spec, noEnv)).toEqual(spec);
  });
});
