import { setCondition } from '@platform/kube';
import type {
  RestoreProgressStatus,
  RestoreSourceInfo,
  RestoreTargetInfo,
  VolumeRestoreStatus,
} from '../api/types.js';
import { durationBetween } from './duration.js';
import { type AttemptRecord, kubeTime, type RestorePlan } from './restore-attempts.js';
import type { RestoreProblem } from './restore-source.js';

export const READY_CONDITION = 'Ready';

export interface RestoreStatusInput {
  plan: RestorePlan;
  history: AttemptRecord[];
  totalAttempts: number;
  sourceInfo?: RestoreSourceInfo;
  targetInfo?: RestoreTargetInfo;
  progress?: RestoreProgressStatus;
  previous?: VolumeRestoreStatus;
  now: Date;
}

/** The status of a restore whose attempts have begun (or are about to). */
export function buildRestoreStatus(input: RestoreStatusInput): VolumeRestoreStatus {
  const { plan, history, totalAttempts, previous, now } = input;
  const startTime = history.find((entry) => entry.startTime)?.startTime;
  const completionTime = plan.completionTime;
  const { reason, message, ready } = describe(input);
  return compact({
    phase: plan.phase,
    startTime,
    completionTime,
    duration: completionTime ? durationBetween(startTime, completionTime) : undefined,
    message,
    progress: input.progress,
    sourceInfo: input.sourceInfo,
    targetInfo: input.targetInfo,
    jobInfo: {
      currentJob: plan.current?.jobName,
      attempt: plan.current?.attempt ?? 0,
      totalAttempts,
      jobHistory: history.map((entry) => compact({ ...entry })),
    },
    conditions: setCondition(
      previous?.conditions,
      { type: READY_CONDITION, status: ready ? 'True' : 'False', reason, message },
      now,
    ),
  });
}

/**
 * The status of a restore that cannot start. A problem that may resolve itself (a claim or a
 * VolumeBackup not there yet) keeps it Pending; any other fails it for good.
 */
export function problemStatus(
  previous: VolumeRestoreStatus | undefined,
  problem: RestoreProblem,
  now: Date,
): VolumeRestoreStatus {
  const final = problem.retryAfterMs === undefined;
  return compact({
    ...previous,
    phase: final ? 'Failed' : 'Pending',
    completionTime: final ? kubeTime(now) : undefined,
    message: problem.message,
    conditions: setCondition(
      previous?.conditions,
      { type: READY_CONDITION, status: 'False', reason: problem.reason, message: problem.message },
      now,
    ),
  });
}

function describe(input: RestoreStatusInput): { reason: string; message: string; ready: boolean } {
  const { plan, totalAttempts, targetInfo } = input;
  const current = plan.current;
  const claim = targetInfo?.pvcName ? `claim ${targetInfo.pvcName}` : 'the target claim';
  const of = current ? `attempt ${current.attempt} of ${totalAttempts}` : '';
  switch (plan.phase) {
    case 'Pending':
      return {
        ready: false,
        reason: 'JobPending',
        message: current ? `waiting for Job ${current.jobName} to start` : 'starting the restore',
      };
    case 'Running':
      return { ready: false, reason: 'Restoring', message: `restoring into ${claim} (${of})` };
    case 'Retrying': {
      const failed = lastFailure(input.history);
      const why = failed
        ? `attempt ${failed.attempt} of ${totalAttempts} failed: ${failed.message}`
        : '';
      const then = plan.next
        ? `attempt ${plan.next.attempt} starts at ${kubeTime(plan.next.dueAt)}`
        : `waiting for Job ${current?.jobName} to start`;
      return { ready: false, reason: 'Retrying', message: [why, then].filter(Boolean).join('; ') };
    }
    case 'Succeeded': {
      const snapshot = input.sourceInfo?.snapshotId
        ? `snapshot ${input.sourceInfo.snapshotId}`
        : 'the snapshot';
      const figures = input.progress
        ? `: ${input.progress.filesRestored ?? 0} files, ${input.progress.bytesRestored ?? 0} bytes`
        : '';
      return {
        ready: true,
        reason: 'Restored',
        message: `restored ${snapshot} into ${claim}${figures}`,
      };
    }
    case 'Failed': {
      const attempts = totalAttempts === 1 ? 'the only attempt' : `all ${totalAttempts} attempts`;
      return {
        ready: false,
        reason: 'RetriesExhausted',
        message: `${attempts} failed; the last: ${current?.message ?? 'job failed'}`,
      };
    }
  }
}

function lastFailure(history: AttemptRecord[]): AttemptRecord | undefined {
  return history.filter((entry) => entry.phase === 'Failed').at(-1);
}

/** Drops undefined fields, which a merge patch could not express and the diff would count. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
