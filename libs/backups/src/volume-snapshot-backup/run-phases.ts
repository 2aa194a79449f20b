import { CoreKinds, ensureObject } from '@platform/kube';
import { OpenStackHttpError } from '@platform/openstack-client';
import type { CurrentSnapshotStatus } from '../api/types.js';
import { MANAGED_BY } from '../render/pod.js';
import { backupRun, type JobObject } from '../volume-backup/backup-runs.js';
import { createOnce } from './create-once.js';
import { describeFailure, describeSuccess } from '../volume-backup/backup-status.js';
import { RunOutcomes } from '../volume-backup/run-outcomes.js';
import type { CinderSnapshot } from './cinder-client.js';
import {
  CINDER_POLL_MS,
  NEXT,
  type RunState,
  type Step,
  WAITING_POLL_MS,
  waitFor,
} from './run-state.js';
import { CinderMetadata, snapshotName } from './snapshot-backup-spec.js';
import {
  conditionOf,
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

/** Cinder refusing a request (4xx but authentication): the run cannot go on. */
const refusedBy = (error: unknown): error is OpenStackHttpError =>
  error instanceof OpenStackHttpError &&
  error.status >= 400 &&
  error.status < 500 &&
  error.status !== 401 &&
  error.status !== 403;

function cinderMetadata(run: RunState): Record<string, string> {
  return {
    [CinderMetadata.managedBy]: MANAGED_BY,
    [CinderMetadata.source]: run.source,
    [CinderMetadata.owner]: `${run.namespace}/${run.name}`,
    [CinderMetadata.ownerUid]: run.uid,
  };
}

/** Pending: the run starts (its clock), finds the Cinder volume and names its snapshot. */
export async function pending(run: RunState): Promise<Step> {
  const now = run.now();
  if (!conditionOf(run.status, SnapshotConditions.complete)) {
    const started = { ...run.status, phase: 'Pending' as const, message: 'The run has started' };
    await run.save(
      withCondition(
        started,
        {
          type: SnapshotConditions.complete,
          status: 'False',
          reason: 'Running',
          message: 'The run has started',
        },
        now,
      ),
    );
  }
  const ref = run.spec.volumeClaimRef;
  const source = await findSourceVolume(
    run.context.client,
    ref.namespace || run.namespace,
    ref.name,
    run.spec.openstack.autoDiscover,
  );
  if ('reason' in source) {
    if (!source.waiting) return run.fail(source.reason, source.message);
    await run.save({ ...run.status, phase: 'Pending', message: source.message });
    return waitFor(WAITING_POLL_MS);
  }
  // Authenticates before the run moves on, and checks the volume is in the credentials' project.
  const volume = await (await run.cinder()).volume(source.cinderVolumeId);
  if (!volume) {
    return run.fail(
      'CinderVolumeNotFound',
      `Cinder volume ${source.cinderVolumeId} of claim ${run.source} is not in the credentials' project`,
    );
  }
  const name = snapshotName(run.spec.snapshot.namePrefix, run.backup, now);
  const message = `Creating snapshot ${name} of Cinder volume ${source.cinderVolumeId}`;
  await run.save(
    withCondition(
      {
        ...run.status,
        phase: 'CreatingSnapshot',
        message,
        currentSnapshot: { name, cinderVolumeId: source.cinderVolumeId },
      },
      { type: SnapshotConditions.snapshotReady, status: 'False', reason: 'Creating', message },
      now,
    ),
  );
  return NEXT;
}

function describeSnapshot(
  current: CurrentSnapshotStatus,
  snapshot: CinderSnapshot,
): CurrentSnapshotStatus {
  return {
    ...current,
    id: snapshot.id,
    status: snapshot.status,
    createdAt: snapshot.created_at,
    sizeGB: snapshot.size,
  };
}

/**
 * CreatingSnapshot: creates the snapshot (adopting one a crash left unrecorded: same name, this
 * resource's uid) and waits for it to be available, at most `snapshot.timeout` seconds.
 */
export async function creatingSnapshot(run: RunState): Promise<Step> {
  const current = run.status.currentSnapshot!;
  const cinder = await run.cinder();
  if (!current.id) {
    const adopted = (await cinder.snapshotsOf(current.cinderVolumeId!)).find(
      (s) => s.name === current.name && s.metadata?.[CinderMetadata.ownerUid] === run.uid,
    );
    let snapshot = adopted;
    try {
      snapshot ??= await cinder.createSnapshot({
        volumeId: current.cinderVolumeId!,
        name: current.name!,
        description: `Backup of ${run.source} by VolumeSnapshotBackup ${run.namespace}/${run.name}`,
        force: run.spec.snapshot.force,
        metadata: cinderMetadata(run),
      });
    } catch (error) {
      if (!refusedBy(error)) throw error;
      return run.fail(
        'SnapshotRefused',
        `Cinder refused the snapshot of volume ${current.cinderVolumeId}: ${error.upstreamMessage ?? error.message}`,
      );
    }
    await run.save({ ...run.status, currentSnapshot: describeSnapshot(current, snapshot) });
    await run.event(
      'SnapshotCreated',
      `Snapshot ${snapshot.id} of Cinder volume ${snapshot.volume_id} requested`,
    );
    return waitFor(CINDER_POLL_MS);
  }
  const snapshot = await cinder.snapshot(current.id);
  if (!snapshot) return run.fail('SnapshotLost', `Snapshot ${current.id} disappeared from Cinder`);
  const described = describeSnapshot(current, snapshot);
  if (snapshot.status === 'error') {
    return run.fail(
      'SnapshotFailed',
      `Cinder could not create snapshot ${current.id} (status error)`,
    );
  }
  const now = run.now();
  if (snapshot.status === 'available') {
    const message = `Creating a temporary volume from snapshot ${current.id}`;
    let status = withCondition(
      { ...run.status, phase: 'CreatingVolume', message, currentSnapshot: described },
      {
        type: SnapshotConditions.snapshotReady,
        status: 'True',
        reason: 'Available',
        message: `Snapshot ${current.id} is available`,
      },
      now,
    );
    status = withCondition(
      {
        ...status,
        temporaryVolume: { pvcName: run.names.temporaryClaim, pvName: run.names.persistentVolume },
      },
      {
        type: SnapshotConditions.temporaryVolumeReady,
        status: 'False',
        reason: 'Creating',
        message,
      },
      now,
    );
    await run.save(status);
    return NEXT;
  }
  const timeout = run.spec.snapshot.timeout;
  const left = remainingMs(
    sinceMs(run.status, SnapshotConditions.snapshotReady, 'False'),
    timeout,
    now,
  );
  if (left <= 0) {
    return run.fail(
      'SnapshotTimeout',
      `Snapshot ${current.id} did not become available within ${timeout}s (status ${snapshot.status})`,
    );
  }
  await run.save({ ...run.status, currentSnapshot: described });
  return waitFor(Math.min(CINDER_POLL_MS, left));
}

/**
 * CreatingVolume: a Cinder volume from the snapshot (adopted by name and uid after a crash),
 * then its persistent volume and claim, all within `temporaryVolume.timeout` seconds.
 */
export async function creatingVolume(run: RunState): Promise<Step> {
  const temporary = run.status.temporaryVolume ?? {};
  const snapshot = run.status.currentSnapshot!;
  const cinder = await run.cinder();
  const timeout = run.spec.temporaryVolume.timeout;
  const started = sinceMs(run.status, SnapshotConditions.temporaryVolumeReady, 'False');
  const left = remainingMs(started, timeout, run.now());
  const timedOut = (what: string) =>
    run.fail(
      'TemporaryVolumeTimeout',
      `The temporary volume was not ready within ${timeout}s: ${what}`,
    );
  if (!temporary.cinderVolumeId) {
    const adopted = (await cinder.volumesNamed(run.names.cinderVolume)).find(
      (v) => v.metadata?.[CinderMetadata.ownerUid] === run.uid,
    );
    let volume = adopted;
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
  const volume = await cinder.volume(temporary.cinderVolumeId);
  if (!volume)
    return run.fail(
      'VolumeLost',
      `Temporary volume ${temporary.cinderVolumeId} disappeared from Cinder`,
    );
  if (volume.status === 'error') {
    return run.fail(
      'VolumeFailed',
      `Cinder could not create temporary volume ${volume.id} (status error)`,
    );
  }
  if (volume.status !== 'available' && volume.status !== 'in-use') {
    if (left <= 0) return timedOut(`Cinder volume ${volume.id} is ${volume.status}`);
    await run.save({ ...run.status, temporaryVolume: { ...temporary, status: volume.status } });
    return waitFor(Math.min(CINDER_POLL_MS, left));
  }
  const phase = await bindTemporaryVolume(run, volume.id, snapshot.sizeGB ?? volume.size);
  if (phase === 'Bound') {
    const message = `Backing up temporary claim ${run.names.temporaryClaim}`;
    await run.save(
      withCondition(
        {
          ...run.status,
          phase: 'Backup',
          message,
          temporaryVolume: { ...temporary, status: volume.status },
        },
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
  if (left <= 0) return timedOut(`claim ${run.names.temporaryClaim} is ${phase ?? 'Pending'}`);
  await run.save({
    ...run.status,
    message: `Waiting for claim ${run.names.temporaryClaim} to bind`,
    temporaryVolume: { ...temporary, status: volume.status },
  });
  // The claim's own events come sooner; this is the deadline.
  return waitFor(left);
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
