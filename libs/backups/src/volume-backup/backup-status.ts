import { type Condition, setCondition } from '@platform/kube';
import type { BackupSummary } from '../render/volume-backup.js';
import type { BackupRun, BackupRuns } from './backup-runs.js';

export type VolumeBackupPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

/** The status fields this operator owns (observedGeneration is added by writeStatus). */
export interface BackupStatusFields {
  phase?: VolumeBackupPhase;
  lastBackup?: string;
  lastSnapshot?: string;
  volumeSize?: string;
  message?: string;
  conditions?: Condition[];
}

/** Why the resource cannot be reconciled as written: reported, nothing created. */
export interface BackupProblem {
  reason: string;
  message: string;
}

export interface StatusInputs {
  schedule: string;
  suspended: boolean;
  runs: BackupRuns;
  previous: BackupStatusFields | undefined;
  /** Read from the newest successful Job when `needsSummary` said so. */
  summary?: BackupSummary;
  /** Read from the newest finished Job when it failed and `needsFailureDetail` said so. */
  failureDetail?: string;
  now: Date;
}

/** Messages of finished runs start with this, which tells a later reconcile what they describe. */
export function runMessagePrefix(run: BackupRun): string {
  return `Backup job ${run.job} `;
}

/** The newest successful run is newer than what the status shows: its pod is worth reading. */
export function needsSummary(runs: BackupRuns, previous: BackupStatusFields | undefined): boolean {
  const latest = runs.latestSucceeded;
  if (!latest?.completionTime) return false;
  return (
    !previous?.lastBackup || Date.parse(latest.completionTime) > Date.parse(previous.lastBackup)
  );
}

/** The newest finished run failed and the status does not describe it yet. */
export function needsFailureDetail(
  runs: BackupRuns,
  previous: BackupStatusFields | undefined,
): boolean {
  const latest = runs.latestFinished;
  if (latest?.phase !== 'Failed') return false;
  return !previous?.message?.startsWith(`${runMessagePrefix(latest)}failed`);
}

export function describeFailure(run: BackupRun, detail: string | undefined): string {
  return `${runMessagePrefix(run)}failed: ${detail ?? run.failureReason ?? 'the Job failed'}`;
}

export function describeSuccess(
  run: BackupRun,
  snapshot: { snapshotId?: string; volumeSize?: string },
): string {
  if (!snapshot.snapshotId)
    return `${runMessagePrefix(run)}succeeded; its summary could not be read`;
  const size = snapshot.volumeSize ? ` (${snapshot.volumeSize})` : '';
  return `${runMessagePrefix(run)}created snapshot ${snapshot.snapshotId}${size}`;
}

/** The status a VolumeBackup shows for its backup Jobs. */
export function buildBackupStatus(inputs: StatusInputs): BackupStatusFields {
  const { runs, previous, summary, now } = inputs;
  const latestSucceeded = runs.latestSucceeded;
  const fresh = needsSummary(runs, previous);
  const lastBackup = fresh ? latestSucceeded?.completionTime : previous?.lastBackup;
  const lastSnapshot = fresh && summary ? summary.snapshotId : previous?.lastSnapshot;
  const volumeSize = fresh && summary ? summary.volumeSize : previous?.volumeSize;

  const finished = runs.latestFinished;
  let phase: VolumeBackupPhase;
  let message: string;
  if (runs.active) {
    phase = 'Running';
    message = `${runMessagePrefix(runs.active)}is running`;
  } else if (finished) {
    phase = finished.phase === 'Succeeded' ? 'Succeeded' : 'Failed';
    message = finishedMessage(finished, inputs, { snapshotId: lastSnapshot, volumeSize });
  } else if (previous?.phase === 'Succeeded' || previous?.phase === 'Failed') {
    // The Jobs are gone (history limits); what they showed still stands.
    phase = previous.phase;
    message = previous.message ?? '';
  } else {
    phase = 'Pending';
    message = inputs.suspended
      ? 'Backups are suspended'
      : `Waiting for the first backup (schedule "${inputs.schedule}")`;
  }

  let conditions = setCondition(
    previous?.conditions,
    {
      type: 'Ready',
      status: 'True',
      reason: inputs.suspended ? 'Suspended' : 'Scheduled',
      message: inputs.suspended
        ? 'The backup CronJobs are in place and suspended'
        : 'The backup CronJobs are in place',
    },
    now,
  );
  conditions = setCondition(conditions, backupCondition(finished, previous, message), now);

  return compact({ phase, lastBackup, lastSnapshot, volumeSize, message, conditions });
}

function finishedMessage(
  run: BackupRun,
  inputs: StatusInputs,
  snapshot: { snapshotId?: string; volumeSize?: string },
): string {
  const previousMessage = inputs.previous?.message;
  if (run.phase === 'Failed') {
    return needsFailureDetail(inputs.runs, inputs.previous)
      ? describeFailure(run, inputs.failureDetail)
      : previousMessage!;
  }
  if (needsSummary(inputs.runs, inputs.previous)) {
    return describeSuccess(run, inputs.summary ?? {});
  }
  return previousMessage?.startsWith(runMessagePrefix(run))
    ? previousMessage
    : describeSuccess(run, snapshot);
}

function backupCondition(
  finished: BackupRun | undefined,
  previous: BackupStatusFields | undefined,
  message: string,
): Omit<Condition, 'lastTransitionTime'> {
  const kept = previous?.conditions?.find((c) => c.type === 'BackupSucceeded');
  if (!finished) {
    if (kept)
      return { type: kept.type, status: kept.status, reason: kept.reason, message: kept.message };
    return {
      type: 'BackupSucceeded',
      status: 'Unknown',
      reason: 'NoBackupYet',
      message: 'No backup has finished yet',
    };
  }
  const succeeded = finished.phase === 'Succeeded';
  const finishedMessage = message.startsWith(runMessagePrefix(finished))
    ? message
    : (kept?.message ?? `${runMessagePrefix(finished)}${succeeded ? 'succeeded' : 'failed'}`);
  return {
    type: 'BackupSucceeded',
    status: succeeded ? 'True' : 'False',
    reason: succeeded ? 'SnapshotCreated' : 'BackupFailed',
    message: finishedMessage,
  };
}

/** A status reporting a problem with the resource itself; what earlier runs showed is kept. */
export function buildProblemStatus(
  previous: BackupStatusFields | undefined,
  problem: BackupProblem,
  now: Date,
): BackupStatusFields {
  return compact({
    phase: 'Failed',
    lastBackup: previous?.lastBackup,
    lastSnapshot: previous?.lastSnapshot,
    volumeSize: previous?.volumeSize,
    message: problem.message,
    conditions: setCondition(
      previous?.conditions,
      { type: 'Ready', status: 'False', reason: problem.reason, message: problem.message },
      now,
    ),
  });
}

function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
