import { describe, expect, it } from '@jest/globals';
import { expectEventually } from '@platform/testing';
import { RESTORE_SPEC_ANNOTATION, VolumeRestoreKind } from '@platform/backups';
import { CoreKinds, type KubeObject } from '@platform/kube';
import { iso, NS, REPOSITORY, useRestoreHarness } from './restore-support.js';
import { RESYNC_PERIOD_SECONDS } from './support.js';

const STATUS_LINE = (
  done: number,
  files: number,
  bytes: number,
  total: { files: number; bytes: number },
) =>
  JSON.stringify({
    message_type: 'status',
    seconds_elapsed: 3,
    percent_done: done,
    total_files: total.files,
    files_restored: files,
    total_bytes: total.bytes,
    bytes_restored: bytes,
  });

const t = useRestoreHarness();
const { createRestore, statusOf, jobOf, restoreJobs } = t;

/** Sets a Job's status as the Job controller would. */
function setJobStatus(name: string, status: Record<string, unknown>): void {
  t.server.put(CoreKinds.Job, { ...jobOf(name)!, status });
}

/** Puts the Job's pod as the Job controller and kubelet would, with its restic container's state. */
function putPod(
  job: string,
  pod: string,
  phase: string,
  terminated?: Record<string, unknown>,
): void {
  const owner = jobOf(job)!;
  t.server.put(CoreKinds.Pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod,
      namespace: NS,
      labels: { 'job-name': job, 'batch.kubernetes.io/job-name': job },
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          name: job,
          uid: owner.metadata.uid,
          controller: true,
        },
      ],
    },
    spec: { containers: [{ name: 'restic', image: 'restic' }] },
    status: {
      phase,
      containerStatuses: [
        {
          name: 'restic',
          state: terminated
            ? { terminated }
            : { running: { startedAt: iso(t.operator.clock.now()) } },
        },
      ],
    },
  });
}

function failed(reason: string, message: string, at: Date) {
  return {
    conditions: [{ type: 'Failed', status: 'True', reason, message, lastTransitionTime: iso(at) }],
  };
}

describe('VolumeRestore lifecycle', () => {
  it('restores from a VolumeBackup through retries: Pending, Running, Retrying, Running, Succeeded', async () => {
    const created = await createRestore('orders', {
      sourceBackup: { volumeBackupRef: { name: 'nightly' } },
      targetPVC: { size: '2Gi', storageClass: 'fast', labels: { app: 'orders' } },
      jobConfig: { retries: 1 },
    });

    // Pending: the claim and the first Job exist, nothing runs yet.
    await expectEventually(() => expect(statusOf('orders').phase).toBe('Pending'));
    const t0 = iso(t.operator.clock.now());
    expect(statusOf('orders')).toMatchObject({
      phase: 'Pending',
      message: 'waiting for Job orders-restore-1 to start',
      sourceInfo: { repository: REPOSITORY.url, host: 'shop-data', paths: ['/'] },
      targetInfo: {
        pvcName: 'orders-restored',
        pvcNamespace: NS,
        storageClass: 'fast',
        size: '2Gi',
        created: true,
      },
      jobInfo: {
        currentJob: 'orders-restore-1',
        attempt: 1,
        totalAttempts: 2,
        jobHistory: [{ jobName: 'orders-restore-1', attempt: 1, phase: 'Pending' }],
      },
      conditions: [
        { type: 'Ready', status: 'False', reason: 'JobPending', lastTransitionTime: t0 },
      ],
      observedGeneration: 1,
    });
    const claim = t.server.get<KubeObject>(CoreKinds.PersistentVolumeClaim, NS, 'orders-restored')!;
    expect(claim.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '2Gi' } },
      storageClassName: 'fast',
    });
    expect(claim.metadata.labels).toMatchObject({
      app: 'orders',
      'backups.k8s.neutral.com/volume-restore': 'orders',
    });
    // The restored data outlives the VolumeRestore: the claim has no owner.
    expect(claim.metadata.ownerReferences).toBeUndefined();

    const first = jobOf('orders-restore-1')!;
    expect(first.metadata.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'VolumeRestore',
        name: 'orders',
        uid: created.metadata.uid,
        controller: true,
      }),
    ]);
    const container = first.spec!.template.spec.containers[0];
    expect(container.env).toContainEqual({ name: 'RESTIC_REPOSITORY', value: REPOSITORY.url });
    expect(container.envFrom).toEqual([{ secretRef: { name: 'repo' } }]);
    expect(container.command[2]).toContain('--host shop-data');
    expect(first.spec!.template.spec.volumes).toContainEqual({
      name: 'restore',
      persistentVolumeClaim: { claimName: 'orders-restored' },
    });

    // Running: progress comes from restic's latest status line in the pod's log.
    t.operator.clock.advance({ seconds: 2 });
    const started1 = iso(t.operator.clock.now());
    t.server.setPodLog(
      NS,
      'orders-restore-1-a',
      `${STATUS_LINE(0.1, 1, 400, { files: 40, bytes: 4000 })}\n`,
      'restic',
    );
    putPod('orders-restore-1', 'orders-restore-1-a', 'Running');
    setJobStatus('orders-restore-1', { active: 1, startTime: started1 });
    await expectEventually(() =>
      expect(statusOf('orders')).toMatchObject({
        phase: 'Running',
        startTime: started1,
        message: 'restoring into claim orders-restored (attempt 1 of 2)',
        progress: {
          filesTotal: 40,
          filesRestored: 1,
          bytesTotal: 4000,
          bytesRestored: 400,
          percentComplete: 10,
        },
      }),
    );

    // While it runs the log is read again every few seconds.
    t.server.setPodLog(
      NS,
      'orders-restore-1-a',
      [
        STATUS_LINE(0.1, 1, 400, { files: 40, bytes: 4000 }),
        'not json',
        STATUS_LINE(0.3525, 14, 1410, { files: 40, bytes: 4000 }),
      ].join('\n'),
      'restic',
    );
    await t.operator.advance({ seconds: 5 });
    await expectEventually(() =>
      expect(statusOf('orders').progress).toEqual({
        filesTotal: 40,
        filesRestored: 14,
        bytesTotal: 4000,
        bytesRestored: 1410,
        percentComplete: 35.25,
      }),
    );

    // The Job gives up: Retrying, with the next attempt 10 s after the failure.
    const failedAt = t.operator.clock.now();
    putPod('orders-restore-1', 'orders-restore-1-a', 'Failed', {
      exitCode: 1,
      message:
        'restoring snapshot\nFatal: unable to open repository at s3:https://s3.example.com/bucket/shop',
      finishedAt: iso(failedAt),
    });
    setJobStatus('orders-restore-1', {
      failed: 7,
      startTime: started1,
      ...failed('BackoffLimitExceeded', 'Job has reached the specified backoff limit', failedAt),
    });
    const firstFailure =
      'BackoffLimitExceeded: Job has reached the specified backoff limit; ' +
      'restic: Fatal: unable to open repository at s3:https://s3.example.com/bucket/shop';
    const retryAt = iso(new Date(failedAt.getTime() + 10_000));
    await expectEventually(() =>
      expect(statusOf('orders')).toMatchObject({
        phase: 'Retrying',
        message: `attempt 1 of 2 failed: ${firstFailure}; attempt 2 starts at ${retryAt}`,
        jobInfo: {
          currentJob: 'orders-restore-1',
          attempt: 1,
          jobHistory: [
            {
              jobName: 'orders-restore-1',
              attempt: 1,
              phase: 'Failed',
              startTime: started1,
              completionTime: iso(failedAt),
              message: firstFailure,
            },
          ],
        },
      }),
    );

    // A spec change after the start changes nothing: the retry runs what the first attempt ran.
    await t.client.mergePatch(VolumeRestoreKind, NS, 'orders', {
      spec: { restoreSpec: { paths: ['/elsewhere'] }, jobConfig: { retries: 5 } },
    });
    await t.operator.advance({ seconds: 9 });
    expect(restoreJobs('orders')).toEqual(['orders-restore-1']);
    await t.operator.advance({ seconds: 1 });
    await expectEventually(() =>
      expect(restoreJobs('orders')).toEqual(['orders-restore-1', 'orders-restore-2']),
    );
    const second = jobOf('orders-restore-2')!;
    expect(second.spec!.template).toEqual(first.spec!.template);
    expect(second.metadata.annotations?.[RESTORE_SPEC_ANNOTATION]).toBe(
      first.metadata.annotations?.[RESTORE_SPEC_ANNOTATION],
    );
    await expectEventually(() =>
      expect(statusOf('orders')).toMatchObject({
        phase: 'Retrying',
        message: `attempt 1 of 2 failed: ${firstFailure}; waiting for Job orders-restore-2 to start`,
        jobInfo: { currentJob: 'orders-restore-2', attempt: 2, totalAttempts: 2 },
        observedGeneration: 2,
      }),
    );

    // Running again, with the new attempt's progress.
    t.operator.clock.advance({ seconds: 3 });
    const started2 = iso(t.operator.clock.now());
    t.server.setPodLog(
      NS,
      'orders-restore-2-b',
      STATUS_LINE(0.5, 20, 2000, { files: 40, bytes: 4000 }),
      'restic',
    );
    putPod('orders-restore-2', 'orders-restore-2-b', 'Running');
    setJobStatus('orders-restore-2', { active: 1, startTime: started2 });
    await expectEventually(() =>
      expect(statusOf('orders')).toMatchObject({
        phase: 'Running',
        message: 'restoring into claim orders-restored (attempt 2 of 2)',
        startTime: started1,
        progress: {
          filesTotal: 40,
          filesRestored: 20,
          bytesTotal: 4000,
          bytesRestored: 2000,
          percentComplete: 50,
        },
      }),
    );

    // Succeeded: the final figures and the snapshot come from the termination message.
    t.operator.clock.advance({ seconds: 85 });
    const done = t.operator.clock.now();
    putPod('orders-restore-2', 'orders-restore-2-b', 'Succeeded', {
      exitCode: 0,
      message:
        '{"snapshot_id":"4f1b2c3d5e6f7a8b","snapshot_time":"2024-05-02T03:00:12Z","files_restored":40,"bytes_restored":4000}',
      finishedAt: iso(done),
    });
    setJobStatus('orders-restore-2', {
      succeeded: 1,
      startTime: started2,
      completionTime: iso(done),
      conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: iso(done) }],
    });
    await expectEventually(() => expect(statusOf('orders').phase).toBe('Succeeded'));
    expect(statusOf('orders')).toEqual({
      phase: 'Succeeded',
      startTime: started1,
      completionTime: iso(done),
      duration: '1m43s',
      message:
        'restored snapshot 4f1b2c3d5e6f7a8b into claim orders-restored: 40 files, 4000 bytes',
      progress: {
        filesTotal: 40,
        filesRestored: 40,
        bytesTotal: 4000,
        bytesRestored: 4000,
        percentComplete: 100,
      },
      sourceInfo: {
        snapshotId: '4f1b2c3d5e6f7a8b',
        snapshotDate: '2024-05-02T03:00:12.000Z',
        repository: REPOSITORY.url,
        host: 'shop-data',
        paths: ['/'],
      },
      targetInfo: {
        pvcName: 'orders-restored',
        pvcNamespace: NS,
        storageClass: 'fast',
        size: '2Gi',
        created: true,
      },
      jobInfo: {
        currentJob: 'orders-restore-2',
        attempt: 2,
        totalAttempts: 2,
        jobHistory: [
          {
            jobName: 'orders-restore-1',
            attempt: 1,
            phase: 'Failed',
            startTime: started1,
            completionTime: iso(failedAt),
            message: firstFailure,
          },
          {
            jobName: 'orders-restore-2',
            attempt: 2,
            phase: 'Succeeded',
            startTime: started2,
            completionTime: iso(done),
          },
        ],
      },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Restored',
          message:
            'restored snapshot 4f1b2c3d5e6f7a8b into claim orders-restored: 40 files, 4000 bytes',
          lastTransitionTime: iso(done),
        },
      ],
      observedGeneration: 2,
    });

    // Finished for good: resyncs and Job events write nothing and start nothing.
    await t.operator.settled();
    const writes = t.server.mutations({ kind: 'VolumeRestore', name: 'orders' });
    const jobWrites = t.server.mutations({ kind: 'Job', namespace: NS });
    setJobStatus('orders-restore-1', {
      failed: 7,
      ...failed('BackoffLimitExceeded', 'again', done),
    });
    await t.operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    await t.operator.settled();
    expect(t.server.mutations({ kind: 'VolumeRestore', name: 'orders' })).toBe(writes);
    expect(t.server.mutations({ kind: 'Job', namespace: NS })).toBe(jobWrites);
    expect(restoreJobs('orders')).toEqual(['orders-restore-1', 'orders-restore-2']);

    // One Event per attempt that started, failed or succeeded, about this restore.
    const events = t.server
      .list<KubeObject & { reason: string; type: string; involvedObject: { uid: string } }>(
        CoreKinds.Event,
        NS,
      )
      .filter((e) => e.involvedObject.uid === created.metadata.uid)
      .map((e) => `${e.metadata.name} ${e.type}`)
      .sort();
    expect(events).toEqual([
      'orders-restore-1.restorefailed Warning',
      'orders-restore-1.restorestarted Normal',
      'orders-restore-2.restorestarted Normal',
      'orders-restore-2.restoresucceeded Normal',
    ]);
  });

  it('fails once every attempt failed, keeping keepFailedJobs Jobs and the whole history', async () => {
    await createRestore('ledger', {
      sourceRepository: {
        ...REPOSITORY,
        host: 'db-1',
        snapshotId: 'abcdef12',
      },
      targetPVC: { size: '1Gi' },
      jobConfig: { retries: 1, keepFailedJobs: 1, activeDeadlineSeconds: 600 },
    });
    await expectEventually(() => expect(jobOf('ledger-restore-1')).toBeDefined());
    expect(
      (jobOf('ledger-restore-1')!.spec as { activeDeadlineSeconds?: number }).activeDeadlineSeconds,
    ).toBe(600);

    const failedAt1 = t.operator.clock.now();
    setJobStatus(
      'ledger-restore-1',
      failed('DeadlineExceeded', 'Job was active longer than specified deadline', failedAt1),
    );
    await expectEventually(() => expect(statusOf('ledger').phase).toBe('Retrying'));
    await t.operator.advance({ seconds: 10 });
    await expectEventually(() =>
      expect(restoreJobs('ledger')).toEqual(['ledger-restore-1', 'ledger-restore-2']),
    );

    const failedAt2 = t.operator.clock.now();
    setJobStatus(
      'ledger-restore-2',
      failed('BackoffLimitExceeded', 'Job has reached the specified backoff limit', failedAt2),
    );
    await expectEventually(() => expect(statusOf('ledger').phase).toBe('Failed'));
    expect(statusOf('ledger')).toMatchObject({
      phase: 'Failed',
      completionTime: iso(failedAt2),
      message:
        'all 2 attempts failed; the last: BackoffLimitExceeded: Job has reached the specified backoff limit',
      sourceInfo: {
        snapshotId: 'abcdef12',
        repository: REPOSITORY.url,
        host: 'db-1',
        paths: ['/'],
      },
      jobInfo: {
        currentJob: 'ledger-restore-2',
        attempt: 2,
        totalAttempts: 2,
        jobHistory: [
          {
            jobName: 'ledger-restore-1',
            attempt: 1,
            phase: 'Failed',
            completionTime: iso(failedAt1),
            message: 'DeadlineExceeded: Job was active longer than specified deadline',
          },
          {
            jobName: 'ledger-restore-2',
            attempt: 2,
            phase: 'Failed',
            completionTime: iso(failedAt2),
            message: 'BackoffLimitExceeded: Job has reached the specified backoff limit',
          },
        ],
      },
      conditions: [{ type: 'Ready', status: 'False', reason: 'RetriesExhausted' }],
    });
    // Only the newest failed Job stays (keepFailedJobs 1); no further attempt starts.
    await expectEventually(() => expect(restoreJobs('ledger')).toEqual(['ledger-restore-2']));
    await t.operator.advance({ minutes: 10 });
    expect(restoreJobs('ledger')).toEqual(['ledger-restore-2']);
    expect(statusOf('ledger').phase).toBe('Failed');
  });

  it('deleting the restore collects its Jobs and keeps the restored claim', async () => {
    await createRestore('gone', {
      sourceRepository: REPOSITORY,
      targetPVC: { size: '1Gi' },
    });
    await expectEventually(() => expect(restoreJobs('gone')).toEqual(['gone-restore-1']));
    await t.client.delete(VolumeRestoreKind, NS, 'gone');
    await expectEventually(() =>
      expect(t.server.get(VolumeRestoreKind, NS, 'gone')).toBeUndefined(),
    );
    await expectEventually(() => expect(restoreJobs('gone')).toEqual([]));
    expect(t.server.get(CoreKinds.PersistentVolumeClaim, NS, 'gone-restored')).toBeDefined();
  });
});
