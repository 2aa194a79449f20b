import type { CurrentSnapshotStatus } from '../api/types.js';
import type { CinderSnapshot } from './cinder-client.js';
import { cinderMetadata, refusedBy } from './cinder-requests.js';
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
 * CreatingSnapshot: creates the snapshot (adopting one a crash left unrecorded: it carries this
 * resource's uid) and waits for it to be available, at most `snapshot.timeout` seconds.
 */
export async function creatingSnapshot(run: RunState): Promise<Step> {
  const current = run.status.currentSnapshot!;
  if (!current.id) return requestSnapshot(run, current);
  const snapshot = await (await run.cinder()).snapshot(current.id);
  if (!snapshot) return run.fail('SnapshotLost', `Snapshot ${current.id} disappeared from Cinder`);
  const described = describeSnapshot(current, snapshot);
  if (snapshot.status === 'error') {
    return run.fail(
      'SnapshotFailed',
      `Cinder could not create snapshot ${current.id} (status error)`,
    );
  }
  if (snapshot.status === 'available') return snapshotAvailable(run, described);
  const timeout = run.spec.snapshot.timeout;
  const started = sinceMs(run.status, SnapshotConditions.snapshotReady, 'False');
  const left = remainingMs(started, timeout, run.now());
  if (left <= 0) {
    return run.fail(
      'SnapshotTimeout',
      `Snapshot ${current.id} did not become available within ${timeout}s (status ${snapshot.status})`,
    );
  }
  await run.save({ ...run.status, currentSnapshot: described });
  return waitFor(Math.min(CINDER_POLL_MS, left));
}

/** The snapshot of the run: the one a crash left unrecorded, else a new one. */
async function requestSnapshot(run: RunState, current: CurrentSnapshotStatus): Promise<Step> {
  const cinder = await run.cinder();
  // A resource makes one snapshot: any of the volume's carrying its uid is the run's.
  let snapshot = (await cinder.snapshotsOf(current.cinderVolumeId!)).find(
    (s) => s.metadata?.[CinderMetadata.ownerUid] === run.uid,
  );
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

/** On to CreatingVolume, whose wait (and timeout) starts now. */
async function snapshotAvailable(run: RunState, described: CurrentSnapshotStatus): Promise<Step> {
  const now = run.now();
  const message = `Creating a temporary volume from snapshot ${described.id}`;
  let status = withCondition(
    { ...run.status, phase: 'CreatingVolume', message, currentSnapshot: described },
    {
      type: SnapshotConditions.snapshotReady,
      status: 'True',
      reason: 'Available',
      message: `Snapshot ${described.id} is available`,
    },
    now,
  );
  status = withCondition(
    {
      ...status,
      temporaryVolume: { pvcName: run.names.temporaryClaim, pvName: run.names.persistentVolume },
    },
    { type: SnapshotConditions.temporaryVolumeReady, status: 'False', reason: 'Creating', message },
    now,
  );
  await run.save(status);
  return NEXT;
}
