import { expect } from '@jest/globals';
import { type S3Backup, S3BackupKind, type S3BackupSpec } from '@platform/backups';
import { CoreKinds, type KubeClient, type KubeObject } from '@platform/kube';
import { expectEventually, type FakeKubeApiServer } from '@platform/testing';
import type { JobRun } from './support.js';

export const BUCKET_SOURCE = {
  bucket: 'media',
  endpoint: 'https://objects.example.test',
  credentialsSecretRef: { name: 'media-reader' },
};

/** Shortcuts of the S3Backup tests, as volumeBackupHelpers for VolumeBackup. */
export function s3BackupHelpers(cluster: () => { server: FakeKubeApiServer; api: KubeClient }) {
  const spec = (overrides: Partial<S3BackupSpec> = {}): S3BackupSpec => ({
    source: BUCKET_SOURCE,
    schedule: '20 2 * * *',
    repository: {
      type: 's3',
      url: 's3:https://backups.example.test/repos/media',
      secretRef: { name: 'restic-credentials' },
    },
    ...overrides,
  });
  const backupOf = (namespace: string, name: string) =>
    cluster().server.get<S3Backup>(S3BackupKind, namespace, name);
  return {
    spec,
    create: (namespace: string, name: string, overrides: Partial<S3BackupSpec> = {}) =>
      cluster().api.create<S3Backup>(S3BackupKind, {
        apiVersion: 'backups.k8s.neutral.com/v1',
        kind: 'S3Backup',
        metadata: { name, namespace },
        spec: spec(overrides),
      }),
    backupOf,
    /** Resolves once the operator has written a status for the current generation. */
    reconciled: (namespace: string, name: string) =>
      expectEventually(() => {
        const backup = backupOf(namespace, name)!;
        expect(backup.status?.observedGeneration).toBe(backup.metadata.generation);
        return backup;
      }),
  };
}

/**
 * Ends a run whose copy failed, as the kubelet and the Job controller would: the sync init
 * container terminates with rclone's log as its message and restic never starts; then the Job
 * fails.
 */
export function failSyncOfRun(
  server: FakeKubeApiServer,
  namespace: string,
  run: JobRun,
  outcome: { completionTime: string; rcloneLog: string },
): void {
  const pod = server.get<KubeObject>(CoreKinds.Pod, namespace, `${run.job}-pod`)!;
  server.put(CoreKinds.Pod, {
    ...pod,
    status: {
      phase: 'Failed',
      initContainerStatuses: [
        {
          name: 'sync',
          state: {
            terminated: {
              exitCode: 1,
              reason: 'Error',
              finishedAt: outcome.completionTime,
              message: outcome.rcloneLog,
            },
          },
        },
      ],
      containerStatuses: [{ name: 'restic', state: { waiting: { reason: 'PodInitializing' } } }],
    },
  });
  const job = server.get<KubeObject>(CoreKinds.Job, namespace, run.job)!;
  server.put(CoreKinds.Job, {
    ...job,
    status: {
      startTime: run.startTime,
      failed: 3,
      conditions: [
        {
          type: 'Failed',
          status: 'True',
          reason: 'BackoffLimitExceeded',
          message: 'Job has reached the specified backoff limit',
          lastTransitionTime: outcome.completionTime,
        },
      ],
    },
  });
}
