import { describe, expect, it } from '@jest/globals';
import { withVolumeRestoreDefaults } from '../api/defaults.js';
import type { VolumeRestore } from '../api/types.js';
import type { JobObject } from './restore-cluster.js';
import { renderAttemptJob, RESTORE_SPEC_ANNOTATION, startedWithOf } from './restore-jobs.js';

const restore: VolumeRestore = {
  apiVersion: 'backups.k8s.neutral.com/v1',
  kind: 'VolumeRestore',
  metadata: { name: 'db', namespace: 'shop', uid: 'u-1' },
  spec: {
    sourceBackup: { volumeBackupRef: { name: 'nightly' } },
    targetPVC: { size: '1Gi' },
  },
};
const startedWith = {
  spec: withVolumeRestoreDefaults(restore.spec!, {}),
  source: {
    repository: {
      type: 's3' as const,
      url: 's3:https://s3.example.com/b',
      secretRef: { name: 'repo' },
    },
    host: 'shop-data',
  },
};

describe('renderAttemptJob', () => {
  it('names the Job after the attempt and records the started spec on it', () => {
    const job = renderAttemptJob(restore, startedWith, 2, true, 'db-restored');
    expect(job.metadata.name).toBe('db-restore-2');
    expect(JSON.parse(job.metadata.annotations![RESTORE_SPEC_ANNOTATION])).toEqual(startedWith);
    expect(job.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: 'u-1' })]);
  });

  it('renders from the started spec, not from a later one', () => {
    const changed = { ...restore, spec: { ...restore.spec!, restoreSpec: { paths: ['/other'] } } };
    const job = renderAttemptJob(changed, startedWith, 2, false, 'db-restored');
    expect(job).toEqual(renderAttemptJob(restore, startedWith, 2, false, 'db-restored'));
    expect(job.metadata.ownerReferences).toBeUndefined();
  });
});

describe('startedWithOf', () => {
  const job = (name: string, annotation?: string): JobObject => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      ...(annotation ? { annotations: { [RESTORE_SPEC_ANNOTATION]: annotation } } : {}),
    },
  });

  it('reads the newest Job that carries a readable started spec', () => {
    const older = { ...startedWith, source: { ...startedWith.source, host: 'older' } };
    expect(
      startedWithOf('db', [
        job('db-restore-1', JSON.stringify(older)),
        job('db-restore-3', '{not json'),
        job('db-restore-2', JSON.stringify(startedWith)),
      ]),
    ).toEqual(startedWith);
  });

  it('is undefined when no Job carries one', () => {
    expect(startedWithOf('db', [job('db-restore-1'), job('db-restore-2', '{}')])).toBeUndefined();
  });
});
