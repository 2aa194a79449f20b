import type { S3BackupStatus } from '../api/types.js';
import type { BackupSummary } from '../render/volume-backup.js';
import {
  type BackupProblem,
  type BackupStatusFields,
  buildBackupStatus,
  buildProblemStatus,
  needsSummary,
  type StatusInputs,
} from '../volume-backup/backup-status.js';

/*
 * An S3Backup's status is a VolumeBackup's (same runs, phases, messages and conditions) with
 * the size under `size` and the object and byte counts of the last successful backup.
 */

export interface S3StatusInputs extends Omit<StatusInputs, 'previous'> {
  previous: S3BackupStatus | undefined;
}

/** The previous status as the VolumeBackup status builder reads it. */
export function asBackupStatusFields(
  status: S3BackupStatus | undefined,
): BackupStatusFields | undefined {
  if (!status) return undefined;
  const { size, ...rest } = status;
  return size === undefined ? rest : { ...rest, volumeSize: size };
}

export function buildS3BackupStatus(inputs: S3StatusInputs): S3BackupStatus {
  const previous = asBackupStatusFields(inputs.previous);
  const built = buildBackupStatus({ ...inputs, previous });
  const summary = needsSummary(inputs.runs, previous) ? inputs.summary : undefined;
  return withCounts(built, summary, inputs.previous);
}

/** A status reporting a problem with the resource itself; what earlier runs showed is kept. */
export function buildS3ProblemStatus(
  previous: S3BackupStatus | undefined,
  problem: BackupProblem,
  now: Date,
): S3BackupStatus {
  return withCounts(
    buildProblemStatus(asBackupStatusFields(previous), problem, now),
    undefined,
    previous,
  );
}

/** restic counts the files it read: every object of the copy is one. */
export function objectCount(summary: BackupSummary): number {
  return summary.filesNew + summary.filesChanged + summary.filesUnmodified;
}

function withCounts(
  fields: BackupStatusFields,
  summary: BackupSummary | undefined,
  previous: S3BackupStatus | undefined,
): S3BackupStatus {
  const { volumeSize, ...rest } = fields;
  const status: S3BackupStatus = { ...rest };
  if (volumeSize !== undefined) status.size = volumeSize;
  const objects = summary ? objectCount(summary) : previous?.objectCount;
  const bytes = summary ? summary.totalBytesProcessed : previous?.bytes;
  if (objects !== undefined) status.objectCount = objects;
  if (bytes !== undefined) status.bytes = bytes;
  return status;
}
