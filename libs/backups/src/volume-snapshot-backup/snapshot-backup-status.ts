import { type Condition, setCondition } from '@platform/kube';
import type { VolumeSnapshotBackupPhase, VolumeSnapshotBackupStatus } from '../api/types.js';

/**
 * The conditions a run keeps. Their transition times are the run's clocks: `Complete` turned
 * False when the run started, `SnapshotReady` and `TemporaryVolumeReady` when the wait for the
 * snapshot and for the bound temporary volume began (what the timeouts count from).
 * `Succeeded` holds the outcome while Cleanup runs.
 */
export const SnapshotConditions = {
  complete: 'Complete',
  succeeded: 'Succeeded',
  snapshotReady: 'SnapshotReady',
  temporaryVolumeReady: 'TemporaryVolumeReady',
  credentialsReady: 'CredentialsReady',
} as const;

export const TERMINAL_PHASES: readonly VolumeSnapshotBackupPhase[] = ['Succeeded', 'Failed'];

export function conditionOf(
  status: VolumeSnapshotBackupStatus | undefined,
  type: string,
): Condition | undefined {
  return status?.conditions?.find((condition) => condition.type === type);
}

/** When the condition took its present status, if it has `expected`. */
export function sinceMs(
  status: VolumeSnapshotBackupStatus | undefined,
  type: string,
  expected: Condition['status'],
): number | undefined {
  const condition = conditionOf(status, type);
  if (condition?.status !== expected) return undefined;
  const ms = Date.parse(condition.lastTransitionTime);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Milliseconds left of a wait of `seconds` that began at `startedMs` (negative once over). */
export function remainingMs(startedMs: number | undefined, seconds: number, now: Date): number {
  if (startedMs === undefined) return seconds * 1000;
  return startedMs + seconds * 1000 - now.getTime();
}

export function withCondition(
  status: VolumeSnapshotBackupStatus,
  next: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): VolumeSnapshotBackupStatus {
  return { ...status, conditions: setCondition(status.conditions, next, now) };
}

/** The status timestamp form: RFC 3339 in whole seconds. */
export function statusTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
