import { VolumeSnapshotBackupKind } from '../api/kinds.js';
import type { VolumeSnapshotBackup, VolumeSnapshotBackupStatus } from '../api/types.js';
import { backupRun, type JobObject } from '../volume-backup/backup-runs.js';
import { RunOutcomes } from '../volume-backup/run-outcomes.js';
import { formatDuration } from '../volume-restore/duration.js';
import { CoreKinds } from '@platform/kube';
import { CINDER_POLL_MS, NEXT, type RunState, type Step, waitFor } from './run-state.js';
import { CinderMetadata } from './snapshot-backup-spec.js';
import {
  conditionOf,
  SnapshotConditions,
  sinceMs,
  statusTime,
  withCondition,
} from './snapshot-backup-status.js';
import type { SnapshotBackupWebhookPayload } from './snapshot-backup-webhooks.js';
import { snapshotsToPrune } from './snapshot-retention.js';
import { TemporaryCleanup } from './temporary-cleanup.js';

/**
 * What a run made and no longer needs: the temporary claim and persistent volume, the
 * temporary Cinder volume, and (when the run failed) its snapshot. Answers why to look again,
 * or undefined once all is gone. Safe to repeat, and after a crash at any point: the Cinder
 * volume of a run that recorded none yet is found by its name and this resource's uid.
 */
export async function removeRunObjects(
  run: RunState,
  keepSnapshot: boolean,
): Promise<string | undefined> {
  const cleanup = new TemporaryCleanup(run.context.client, () => run.cinder());
  const temporary = run.status.temporaryVolume;
  if (temporary) {
    await cleanup.removeKubernetesObjects(run.namespace, run.names);
    let volumeId = temporary.cinderVolumeId;
    if (!volumeId) {
      const cinder = await run.cinder();
      volumeId = (await cinder.volumesNamed(run.names.cinderVolume)).find(
        (v) => v.metadata?.[CinderMetadata.ownerUid] === run.uid,
      )?.id;
    }
    const waiting = volumeId ? await cleanup.removeVolume(volumeId) : undefined;
    if (waiting) return waiting;
  }
  const snapshotId = run.status.currentSnapshot?.id;
  if (!keepSnapshot && snapshotId) return cleanup.removeSnapshot(snapshotId);
  return undefined;
}

/** Cleanup: removes what the run made, applies the snapshot retention, then ends the run. */
export async function cleaningUp(run: RunState): Promise<Step> {
  const succeeded = conditionOf(run.status, SnapshotConditions.succeeded)?.status === 'True';
  const waiting = await removeRunObjects(run, succeeded);
  if (waiting) {
    await run.save({ ...run.status, message: `Cleaning up: ${waiting}` });
    return waitFor(CINDER_POLL_MS);
  }
  await applyRetention(run, succeeded);
  return finish(run, succeeded);
}

/** Deletes the operator's snapshots of the claim that retention no longer keeps. */
async function applyRetention(run: RunState, succeeded: boolean): Promise<void> {
  const current = run.status.currentSnapshot;
  if (!current?.cinderVolumeId || !current.id) return;
  const cinder = await run.cinder();
  const { keepLast, keepForDays } = run.spec.snapshot.retention;
  const doomed = snapshotsToPrune({
    snapshots: await cinder.snapshotsOf(current.cinderVolumeId),
    namePrefix: run.spec.snapshot.namePrefix,
    source: run.source,
    keepLast,
    keepForDays,
    now: run.now(),
    keep: new Set(succeeded ? [current.id] : []),
  });
  const cleanup = new TemporaryCleanup(run.context.client, () => run.cinder());
  for (const snapshot of doomed) {
    const refused = await cleanup.removeSnapshot(snapshot.id);
    // Left for the next run's retention: one snapshot Cinder will not delete yet holds no run.
    if (refused) run.context.logger.warn?.(refused, 'VolumeSnapshotBackup');
  }
}

/** Succeeded or Failed: lastBackup, the Complete condition, the event and the webhook delivery. */
async function finish(run: RunState, succeeded: boolean): Promise<Step> {
  const now = run.now();
  const phase = succeeded ? 'Succeeded' : 'Failed';
  const outcome = conditionOf(run.status, SnapshotConditions.succeeded);
  const message = outcome?.message ?? run.status.message ?? phase;
  const startedMs = sinceMs(run.status, SnapshotConditions.complete, 'False') ?? now.getTime();
  let status: VolumeSnapshotBackupStatus = {
    ...run.status,
    phase,
    message,
    lastBackup: {
      timestamp: statusTime(now),
      status: phase,
      duration: formatDuration(now.getTime() - startedMs),
    },
  };
  status = withCondition(
    status,
    { type: SnapshotConditions.complete, status: 'True', reason: phase, message },
    now,
  );
  const payload = await webhookPayload(run, succeeded, message, startedMs, now);
  status = run.services.webhooks.queue(status, run.spec, payload, now);
  await run.save(status);
  await run.event(succeeded ? 'BackupSucceeded' : 'BackupFailed', message, !succeeded);
  return NEXT;
}

async function webhookPayload(
  run: RunState,
  succeeded: boolean,
  message: string,
  startedMs: number,
  now: Date,
): Promise<SnapshotBackupWebhookPayload> {
  const jobName = run.status.backupJob?.name;
  const job = jobName
    ? await run.context.client.get<JobObject>(CoreKinds.Job, run.namespace, jobName)
    : undefined;
  const summary =
    succeeded && job
      ? await new RunOutcomes(run.context.client, run.namespace).summary(backupRun(job))
      : undefined;
  return {
    event: succeeded ? 'backup.succeeded' : 'backup.failed',
    volumeSnapshotBackup: { namespace: run.namespace, name: run.name, uid: run.uid },
    job: jobName ?? run.name,
    snapshotId: summary?.snapshotId ?? null,
    cinderSnapshotId: run.status.currentSnapshot?.id ?? null,
    volumeSize: summary?.volumeSize ?? null,
    startTime: statusTime(new Date(startedMs)),
    completionTime: statusTime(now),
    message,
  };
}

/**
 * Succeeded or Failed: nothing more to do but the webhook deliveries, sent from the status the
 * API server has (the cached copy may predate the last recorded attempt).
 */
export async function finished(run: RunState): Promise<Step> {
  const pending = run.status.webhookDeliveries?.some((d) => d.state === 'Pending');
  if (!pending) return waitFor();
  const fresh = await run.context.client.get<VolumeSnapshotBackup>(
    VolumeSnapshotBackupKind,
    run.namespace,
    run.name,
  );
  if (!fresh) return waitFor();
  const sent = await run.services.webhooks.sendDue(
    run.context,
    run.backup,
    run.spec,
    fresh.status ?? run.status,
  );
  await run.save(sent.status);
  return waitFor(sent.requeueAfterMs);
}
