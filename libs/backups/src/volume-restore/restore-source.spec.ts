import { describe, expect, it } from '@jest/globals';
import type { VolumeBackup, VolumeRestore, VolumeRestoreSpec } from '../api/types.js';
import { restoreSource, sourceBackupRef, sourceInfoOf } from './restore-source.js';

function restore(spec: Partial<VolumeRestoreSpec>): VolumeRestore {
  return {
    apiVersion: 'backups.k8s.neutral.com/v1',
    kind: 'VolumeRestore',
    metadata: { name: 'db', namespace: 'shop', uid: 'u-1' },
    spec: { targetPVC: { size: '1Gi' }, ...spec },
  };
}

const repository = {
  type: 's3' as const,
  url: 's3:https://s3.example.com/bucket',
  secretRef: { name: 'repo' },
};

function backup(namespace: string, spec: Partial<VolumeBackup['spec']> = {}): VolumeBackup {
  return {
    apiVersion: 'backups.k8s.neutral.com/v1',
    kind: 'VolumeBackup',
    metadata: { name: 'nightly', namespace },
    spec: { volumeClaimRef: { name: 'data' }, repository, ...spec },
  };
}

describe('sourceBackupRef', () => {
  it('defaults the VolumeBackup namespace to the restore namespace', () => {
    expect(
      sourceBackupRef(restore({ sourceBackup: { volumeBackupRef: { name: 'nightly' } } })),
    ).toEqual({
      name: 'nightly',
      namespace: 'shop',
    });
    expect(
      sourceBackupRef(
        restore({ sourceBackup: { volumeBackupRef: { name: 'nightly', namespace: 'ops' } } }),
      ),
    ).toEqual({ name: 'nightly', namespace: 'ops' });
  });

  it('is undefined for a complete sourceRepository', () => {
    expect(sourceBackupRef(restore({ sourceRepository: repository }))).toBeUndefined();
  });

  it.each([
    [{}, 'give sourceBackup or sourceRepository'],
    [
      { sourceBackup: { volumeBackupRef: { name: 'nightly' } }, sourceRepository: repository },
      'give either sourceBackup or sourceRepository, not both',
    ],
    [
      { sourceBackup: { volumeBackupRef: { name: '' } } },
      'sourceBackup.volumeBackupRef.name is required',
    ],
    [
      { sourceRepository: { ...repository, url: '', secretRef: { name: '' } } },
      'sourceRepository needs url, secretRef.name',
    ],
    [
      { sourceRepository: { ...repository, snapshotDate: 'last tuesday' } },
      'snapshotDate "last tuesday" is not a date-time',
    ],
  ])('refuses %j: %s', (spec, message) => {
    expect(sourceBackupRef(restore(spec as Partial<VolumeRestoreSpec>))).toEqual({
      reason: 'InvalidSource',
      message,
    });
  });
});

describe('restoreSource', () => {
  it("takes the VolumeBackup's repository and its default host", () => {
    const r = restore({
      sourceBackup: { volumeBackupRef: { name: 'nightly' }, snapshotId: 'abcdef12' },
    });
    expect(restoreSource(r, { name: 'nightly', namespace: 'shop' }, backup('shop'))).toEqual({
      repository,
      host: 'shop-data',
    });
  });

  it("takes the VolumeBackup's own host when it names one", () => {
    const r = restore({ sourceBackup: { volumeBackupRef: { name: 'nightly' } } });
    expect(
      restoreSource(r, { name: 'nightly', namespace: 'shop' }, backup('shop', { host: 'db-host' })),
    ).toEqual({
      repository,
      host: 'db-host',
    });
  });

  it('waits for a VolumeBackup that does not exist', () => {
    const r = restore({ sourceBackup: { volumeBackupRef: { name: 'nightly' } } });
    expect(restoreSource(r, { name: 'nightly', namespace: 'shop' }, undefined)).toEqual({
      reason: 'SourceNotFound',
      message: 'VolumeBackup shop/nightly does not exist',
      retryAfterMs: 30_000,
    });
  });

  it("fails when another namespace's VolumeBackup keeps its credentials there", () => {
    const r = restore({ sourceBackup: { volumeBackupRef: { name: 'nightly', namespace: 'ops' } } });
    expect(restoreSource(r, { name: 'nightly', namespace: 'ops' }, backup('ops'))).toEqual({
      reason: 'SecretNamespaceMismatch',
      message:
        "the repository Secret ops/repo is outside the restore's namespace shop; pods can only use Secrets of their own namespace",
    });
  });

  it("accepts another namespace's VolumeBackup whose Secret is in the restore's namespace", () => {
    const r = restore({ sourceBackup: { volumeBackupRef: { name: 'nightly', namespace: 'ops' } } });
    const shared = backup('ops', {
      repository: { ...repository, secretRef: { name: 'repo', namespace: 'shop' } },
    });
    expect(restoreSource(r, { name: 'nightly', namespace: 'ops' }, shared)).toEqual({
      repository,
      host: 'ops-data',
    });
  });

  it('takes a sourceRepository as written, host optional', () => {
    expect(restoreSource(restore({ sourceRepository: repository }), undefined, undefined)).toEqual({
      repository,
    });
    expect(
      restoreSource(
        restore({ sourceRepository: { ...repository, host: 'h1' } }),
        undefined,
        undefined,
      ),
    ).toEqual({ repository, host: 'h1' });
  });

  it('refuses a sourceRepository Secret of another namespace', () => {
    const r = restore({
      sourceRepository: { ...repository, secretRef: { name: 'repo', namespace: 'ops' } },
    });
    expect(restoreSource(r, undefined, undefined)).toMatchObject({
      reason: 'SecretNamespaceMismatch',
    });
  });
});

describe('sourceInfoOf', () => {
  it('shows the repository URL, host, paths and the requested snapshot', () => {
    const r = restore({
      sourceRepository: { ...repository, snapshotDate: '2024-05-01T00:00:00Z' },
    });
    expect(sourceInfoOf(r, { repository, host: 'h1' }, ['/var/lib'])).toEqual({
      snapshotDate: '2024-05-01T00:00:00Z',
      repository: 's3:https://s3.example.com/bucket',
      host: 'h1',
      paths: ['/var/lib'],
    });
  });
});
