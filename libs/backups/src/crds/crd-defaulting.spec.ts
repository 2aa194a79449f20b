import { describe, expect, it } from '@jest/globals';
import { applySchemaDefaults } from '@platform/kube';
import { loadBackupCrd } from './index.js';

const specOf = (plural: string, spec: object) =>
  applySchemaDefaults(loadBackupCrd(plural).spec.versions[0].schema.openAPIV3Schema, { spec }).spec;

const REPOSITORY = {
  type: 's3',
  url: 's3:https://s3.example.com/backups/data',
  secretRef: { name: 'restic' },
};
const RESOURCES = {
  requests: { memory: '256Mi', cpu: '200m' },
  limits: { memory: '1Gi', cpu: '1000m' },
};
const IMAGE = { tag: '0.18.1' };

describe('what the API server stores for a minimal resource', () => {
  it('a VolumeBackup gets every default of the spec', () => {
    expect(
      specOf('volumebackups', { volumeClaimRef: { name: 'data' }, repository: REPOSITORY }),
    ).toEqual({
      volumeClaimRef: { name: 'data' },
      repository: REPOSITORY,
      schedule: '0 3 * * *',
      paths: ['/'],
      cache: { enabled: true, size: '5Gi', accessMode: 'ReadWriteOnce' },
      resources: RESOURCES,
      image: { ...IMAGE, pullPolicy: 'Always' },
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

  it('a VolumeBackup keeps what it sets and gets the rest of a partly set object', () => {
    const spec = specOf('volumebackups', {
      volumeClaimRef: { name: 'data' },
      repository: REPOSITORY,
      paths: ['/srv'],
      cache: { enabled: false },
      resources: { limits: { memory: '4Gi' } },
      kubeconfig: { inCluster: false, secretRef: { name: 'remote' } },
      check: { enabled: true, resources: { requests: { cpu: '1' } } },
    });
    expect(spec).toMatchObject({
      paths: ['/srv'],
      cache: { enabled: false, size: '5Gi', accessMode: 'ReadWriteOnce' },
      resources: {
        requests: { memory: '256Mi', cpu: '200m' },
        limits: { memory: '4Gi', cpu: '1000m' },
      },
      kubeconfig: { inCluster: false, secretRef: { name: 'remote', key: 'kubeconfig' } },
      check: {
        enabled: true,
        schedule: '0 4 * * *',
        resources: { requests: { memory: '256Mi', cpu: '1' }, limits: RESOURCES.limits },
      },
    });
  });

  it('a VolumeRestore gets the targetPVC, restoreSpec and jobConfig defaults', () => {
    expect(
      specOf('volumerestores', {
        sourceBackup: { volumeBackupRef: { name: 'data' } },
        targetPVC: {},
      }),
    ).toEqual({
      sourceBackup: { volumeBackupRef: { name: 'data' } },
      targetPVC: { createNew: true, accessMode: 'ReadWriteOnce' },
      restoreSpec: { paths: ['/'], targetPath: '/', overwrite: 'always' },
      jobConfig: { retries: 3, backoffLimit: 6, keepSuccessfulJobs: 3, keepFailedJobs: 3 },
      resources: RESOURCES,
      image: { ...IMAGE, pullPolicy: 'Always' },
      kubeconfig: { inCluster: true },
    });
  });

  it('a VolumeSnapshotBackup gets its own cache, resources and image defaults', () => {
    expect(
      specOf('volumesnapshotbackups', { volumeClaimRef: { name: 'data' }, repository: REPOSITORY }),
    ).toEqual({
      volumeClaimRef: { name: 'data' },
      repository: REPOSITORY,
      openstack: { autoDiscover: true },
      snapshot: {
        force: true,
        timeout: 600,
        namePrefix: 'backup',
        retention: { keepLast: 3, keepForDays: 7 },
      },
      temporaryVolume: { timeout: 300 },
      paths: ['/'],
      cache: { enabled: false, size: '1Gi' },
      resources: { requests: RESOURCES.requests, limits: { memory: '2Gi', cpu: '2000m' } },
      image: { ...IMAGE, pullPolicy: 'IfNotPresent' },
    });
  });

  it("an S3Backup gets every default of the spec, VolumeBackup's where they share a field", () => {
    const source = { bucket: 'media', endpoint: 'https://s3.example.com' };
    expect(specOf('s3backups', { source, repository: REPOSITORY })).toEqual({
      source: { ...source, forcePathStyle: true },
      repository: REPOSITORY,
      schedule: '0 3 * * *',
      cache: { enabled: true, size: '5Gi', accessMode: 'ReadWriteOnce' },
      resources: RESOURCES,
      image: { ...IMAGE, pullPolicy: 'Always' },
      syncImage: { repository: 'rclone/rclone', tag: '1.75.1', pullPolicy: 'IfNotPresent' },
      jobConfig: { keepSuccessfulJobs: 3, keepFailedJobs: 3 },
      suspended: false,
    });
  });
});
