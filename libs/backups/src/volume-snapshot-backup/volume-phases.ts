import { CoreKinds, ensureObject } from '@platform/kube';
import type { TemporaryVolumeStatus } from '../api/types.js';
import { backupRun, type JobObject } from '../volume-backup/backup-runs.js';
import { describeFailure, describeSuccess } from '../volume-backup/backup-status.js';
import { RunOutcomes } from '../volume-backup/run-outcomes.js';
import { cinderMetadata, refusedBy } from './cinder-requests.js';
import { createOnce } from './create-once.js';
import { CINDER_POLL_MS, NEXT, type RunState, type Step, waitFor } from './run-state.js';
import { CinderMetadata } from './snapshot-backup-spec.js';
import {
  remainingMs,
  SnapshotConditions,
  sinceMs,
  withCondition,
} from './snapshot-backup-status.js';
import { findSourceVolume } from './source-volume.js';
import {
  cacheClaim,
  snapshotBackupJob,
  temporaryClaim,
  temporaryPersistentVolume,
} from './temporary-objects.js';

/**
 * CreatingVolume: a Cinder volume from the snapshot (adopted by name and uid after a crash),
 * then its persistent volume and claim, all within `temporaryVolume.timeout` seconds.
 */
export async function creatingVolume(run: RunState): Promise<Step> {
  const temporary = run.status.temporaryVolume ?? {};
  const timeout = run.spec.temporaryVolume.timeout;
  const started = sinceMs(run.status, SnapshotConditions.temporaryVolumeReady, 'False');
  const left = remainingMs(started, timeout, run.now());
  const timedOut = (what: string) =>
    run.fail(
      'TemporaryVolumeTimeout',
      `The temporary volume was not ready within ${timeout}s: ${what}`,
    );
  if (!temporary.cinderVolumeId) return requestVolume(run, temporary, left);
  const volume = await (await run.cinder()).volume(temporary.cinderVolumeId);
  if (!volume) {
    return run.fail(
      'VolumeLost',
      `Temporary volume ${temporary.cinderVolumeId} disappeared from Cinder`,
    );
  }
  if (volume.status === 'error') {
    return run.fail(
      'VolumeFailed',
      `Cinder could not create temporary volume ${volume.id} (status error)`,
    );
  }
  const described = { ...temporary, status: volume.status };
  if (volume.status !== 'available' && volume.status !== 'in-use') {
    if (left <= 0) return timedOut(`Cinder volume ${volume.id} is ${volume.status}`);
    await run.save({ ...run.status, temporaryVolume: described });
    return waitFor(Math.min(CINDER_POLL_MS, left));
  }
  const sizeGB = run.status.currentSnapshot?.sizeGB ?? volume.size;
  const phase = await bindTemporaryVolume(run, volume.id, sizeGB);
  if (phase === 'Bound') return claimBound(run, described);
  if (left <= 0) return timedOut(`claim ${run.names.temporaryClaim} is ${phase ?? 'Pending'}`);
  await run.save({
    ...run.status,
    message: `Waiting for claim ${run.names.temporaryClaim} to bind`,
    temporaryVolume: described,
  });
  // The claim's own events come sooner; this is the deadline.
  return waitFor(left);
}

/** The temporary volume of the run: the one a crash left unrecorded, else a new one. */
async function requestVolume(
  run: RunState,
  temporary: TemporaryVolumeStatus,
  left: number,
): Promise<Step> {
  const snapshot = run.status.currentSnapshot!;
  const cinder = await run.cinder();
  let volume = (await cinder.volumesNamed(run.names.cinderVolume)).find(
    (v) => v.metadata?.[CinderMetadata.ownerUid] === run.uid,
  );
  try {
    volume ??= await cinder.createVolume({
      snapshotId: snapshot.id!,
      name: run.names.cinderVolume,
      size: snapshot.sizeGB ?? 1,
      metadata: cinderMetadata(run),
    });
  } catch (error) {
    if (!refusedBy(error)) throw error;
    return run.fail(
      'VolumeRefused',
      `Cinder refused a volume from snapshot ${snapshot.id}: ${error.upstreamMessage ?? error.message}`,
    );
  }
  await run.save({
    ...run.status,
    temporaryVolume: { ...temporary, cinderVolumeId: volume.id, status: volume.status },
  });
  return waitFor(Math.min(CINDER_POLL_MS, left));
}

/** On to Backup. */
async function claimBound(run: RunState, temporary: TemporaryVolumeStatus): Promise<Step> {
  const message = `Backing up temporary claim ${run.names.temporaryClaim}`;
  await run.save(
    withCondition(
      { ...run.status, phase: 'Backup', message, temporaryVolume: temporary },
      {
        type: SnapshotConditions.temporaryVolumeReady,
        status: 'True',
        reason: 'Bound',
        message: `Claim ${run.names.temporaryClaim} is bound`,
      },
      run.now(),
    ),
  );
  return NEXT;
}

/** The temporary persistent volume and its claim; answers the claim's phase. */
async function bindTemporaryVolume(run: RunState, cinderVolumeId: string, sizeGB: number) {
  const ref = run.spec.volumeClaimRef;
  const source = await findSourceVolume(
    run.context.client,
    ref.namespace || run.namespace,
    ref.name,
    run.spec.openstack.autoDiscover,
  );
  const sourceVolume =
    'reason' in source
      ? { apiVersion: 'v1', kind: 'PersistentVolume', metadata: {} }
      : source.persistentVolume;
  const volume = temporaryPersistentVolume(run.backup, run.spec, {
    cinderVolumeId,
    sizeGB,
    source: sourceVolume,
  });
  await createOnce(run.context, CoreKinds.PersistentVolume, volume);
  const claim = await createOnce(
    run.context,
    CoreKinds.PersistentVolumeClaim,
    temporaryClaim(run.backup, volume),
  );
  return (claim.status as { phase?: string } | undefined)?.phase;
}

/** Backup: the restic Job reads the temporary claim; its end decides the run's outcome. */
export async function backingUp(run: RunState): Promise<Step> {
  if (run.spec.cache.enabled) {
    await ensureObject(
      run.context,
      CoreKinds.PersistentVolumeClaim,
      cacheClaim(run.backup, run.spec),
    );
  }
  const job = await createOnce<JobObject>(
    run.context,
    CoreKinds.Job,
    snapshotBackupJob(run.backup, run.spec),
  );
  const result = backupRun(job);
  const backupJob = {
    name: run.names.job,
    status: result.phase,
    ...(result.startTime ? { startTime: result.startTime } : {}),
    ...(result.completionTime ? { completionTime: result.completionTime } : {}),
  };
  if (result.phase === 'Running') {
    await run.save({ ...run.status, backupJob, message: `Backup job ${run.names.job} is running` });
    return waitFor();
  }
  const outcomes = new RunOutcomes(run.context.client, run.namespace);
  const succeeded = result.phase === 'Succeeded';
  const message = succeeded
    ? describeSuccess(result, (await outcomes.summary(result)) ?? {})
    : describeFailure(result, await outcomes.failureDetail(result));
  await run.save(
    withCondition(
      { ...run.status, phase: 'Cleanup', backupJob, message },
      {
        type: SnapshotConditions.succeeded,
        status: succeeded ? 'True' : 'False',
        reason: succeeded ? 'BackupSucceeded' : 'BackupFailed',
        message,
      },
      run.now(),
    ),
  );
  return NEXT;
}
