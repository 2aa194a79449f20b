import { describe, expect, it } from '@jest/globals';
import type { VolumeSnapshotBackup } from '../api/types.js';
import { snapshotName, withSnapshotBackupDefaults } from './snapshot-backup-spec.js';

const minimal = {
  volumeClaimRef: { name: 'data' },
  repository: {
    type: 's3' as const,
    url: 's3:https://s3.example.test/b',
    secretRef: { name: 'r' },
  },
};

describe('withSnapshotBackupDefaults', () => {
  it('fills the defaults of 3-cluster-operators.md (snapshot 600 s, volume 300 s, keep 3 / 7 days, 1Gi cache)', () => {
    const spec = withSnapshotBackupDefaults(minimal, 'team-a', {});
    expect(spec).toMatchObject({
      openstack: { autoDiscover: true },
      snapshot: {
        force: true,
        timeout: 600,
        namePrefix: 'backup',
        retention: { keepLast: 3, keepForDays: 7 },
      },
      temporaryVolume: { timeout: 300 },
      host: 'team-a-data',
      paths: ['/'],
      cache: { enabled: false, size: '1Gi' },
      resources: {
        requests: { memory: '256Mi', cpu: '200m' },
        limits: { memory: '2Gi', cpu: '2000m' },
      },
      image: {
        repository: 'registry.neutral.com/public/restic',
        tag: '0.18.1',
        pullPolicy: 'IfNotPresent',
      },
    });
  });

  it('keeps given values, zero included, and defaults the Secret namespace to the resource', () => {
    const spec = withSnapshotBackupDefaults(
      {
        ...minimal,
        openstack: {
          credentialsSecretRef: { name: 'os' },
          region: 'RegionTwo',
          autoDiscover: false,
        },
        snapshot: {
          force: false,
          timeout: 30,
          namePrefix: 'nightly',
          retention: { keepLast: 0, keepForDays: 0 },
        },
      },
      'team-a',
      {},
    );
    expect(spec.openstack).toEqual({
      credentialsSecretRef: { name: 'os', namespace: 'team-a' },
      region: 'RegionTwo',
      autoDiscover: false,
    });
    expect(spec.snapshot).toEqual({
      force: false,
      timeout: 30,
      namePrefix: 'nightly',
      retention: { keepLast: 0, keepForDays: 0 },
    });
  });
});

describe('snapshotName', () => {
  it('is the prefix, the resource and the UTC start to the second', () => {
    const backup = { metadata: { name: 'db', namespace: 'team-a' } } as VolumeSnapshotBackup;
    expect(snapshotName('backup', backup, new Date('2024-05-03T06:07:08.900Z'))).toBe(
      'backup-team-a-db-20240503060708',
    );
  });
});
