/**
 * How a restore's attempts (one Job each) add up to its phase. Pure: the reconciler feeds it the
 * history kept in the status merged with what the live Jobs say, and acts on the plan.
 */

import type { JobStatusView } from '../volume-backup/backup-runs.js';
import type { RestoreProblem } from './restore-source.js';

export type AttemptPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';
export type RestorePhase = 'Pending' | 'Running' | 'Retrying' | 'Succeeded' | 'Failed';

export interface AttemptRecord {
  jobName: string;
  attempt: number;
  phase: AttemptPhase;
  startTime?: string;
  completionTime?: string;
  message?: string;
}

/** The parts of a batch/v1 Job this logic reads; dates arrive as RFC 3339 strings. */
export interface ObservedJob {
  metadata: { name?: string; creationTimestamp?: string | Date };
  spec?: { completions?: number | null };
  status?: JobStatusView & { succeeded?: number; failed?: number };
}

export interface RestorePlan {
  phase: RestorePhase;
  /** The newest attempt, if any. */
  current?: AttemptRecord;
  /** The attempt to start, and from when (an instant in the past or now means at once). */
  next?: { attempt: number; dueAt: Date };
  /** Set once the restore has finished. */
  completionTime?: string;
}

const FIRST_RETRY_DELAY_MS = 10_000;
const MAX_RETRY_DELAY_MS = 5 * 60_000;

/** The pause before the attempt after `failedAttempt`: 10 s, 20 s, 40 s ... capped at 5 minutes. */
export function retryDelayMs(failedAttempt: number): number {
  const exponent = Math.max(0, failedAttempt - 1);
  return Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.min(exponent, 20));
}

export function restoreJobName(restoreName: string, attempt: number): string {
  return `${restoreName}-restore-${attempt}`;
}

/** Job names become a label of their pods, and label values carry at most 63 characters. */
export const JOB_NAME_MAX = 63;

/**
 * A name too long for the Job of the last attempt (`<name>-restore-<retries + 1>`): with the
 * default 3 retries a VolumeRestore name may have 53 characters, with 10 retries 52.
 */
export function restoreNameProblem(name: string, retries: number): RestoreProblem | undefined {
  const lastJob = restoreJobName(name, retries + 1);
  if (lastJob.length <= JOB_NAME_MAX) return undefined;
  return {
    reason: 'NameTooLong',
    message: `the name "${name}" is too long: the Job of its last attempt, "${lastJob}", would have ${lastJob.length} characters, and Kubernetes allows ${JOB_NAME_MAX}; rename the VolumeRestore to at most ${name.length - (lastJob.length - JOB_NAME_MAX)} characters`,
  };
}

/** The attempt number a Job name encodes, or undefined for a name that is not one of ours. */
export function attemptOfJob(restoreName: string, jobName: string | undefined): number | undefined {
  const prefix = `${restoreName}-restore-`;
  if (!jobName?.startsWith(prefix)) return undefined;
  const digits = jobName.slice(prefix.length);
  if (!/^[1-9][0-9]{0,3}$/.test(digits)) return undefined;
  return Number(digits);
}

/** A date-time as Kubernetes writes it: RFC 3339 in whole seconds. */
export function kubeTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function isoOf(value: string | Date | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : kubeTime(date);
}

function trueCondition(job: ObservedJob, type: string) {
  return job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/**
 * What one Job says about its attempt. A Job has failed only once the Job controller gave up on it
 * (condition Failed: backoff limit exhausted or deadline exceeded); failed pods before that are
 * the Job's own retries and the attempt is still running.
 */
export function observeJob(job: ObservedJob, attempt: number, now: Date): AttemptRecord {
  const status = job.status ?? {};
  const record: AttemptRecord = {
    jobName: job.metadata.name ?? '',
    attempt,
    phase: 'Pending',
    startTime: isoOf(status.startTime),
  };
  const failed = trueCondition(job, 'Failed');
  const complete = trueCondition(job, 'Complete');
  const completions = job.spec?.completions ?? 1;
  if (failed) {
    record.phase = 'Failed';
    record.completionTime = isoOf(failed.lastTransitionTime) ?? kubeTime(now);
    record.message = [failed.reason, failed.message].filter(Boolean).join(': ') || 'job failed';
  } else if (complete || (status.succeeded ?? 0) >= completions) {
    record.phase = 'Succeeded';
    record.completionTime =
      isoOf(status.completionTime) ?? isoOf(complete?.lastTransitionTime) ?? kubeTime(now);
  } else if ((status.active ?? 0) > 0) {
    record.phase = 'Running';
  }
  if (!record.startTime && record.phase !== 'Pending') {
    record.startTime = isoOf(job.metadata.creationTimestamp) ?? kubeTime(now);
  }
  return record;
}

const isTerminal = (phase: AttemptPhase) => phase === 'Succeeded' || phase === 'Failed';

/**
 * The history to record: entries kept in the status (their Jobs may be deleted by now) updated by
 * what live Jobs say. A finished attempt never changes again, so its recorded entry wins; a
 * recorded message of a running or failed attempt is kept when the live one has none.
 */
export function mergeHistory(
  recorded: AttemptRecord[],
  observed: AttemptRecord[],
): AttemptRecord[] {
  const byAttempt = new Map<number, AttemptRecord>();
  for (const entry of recorded) byAttempt.set(entry.attempt, entry);
  for (const live of observed) {
    const previous = byAttempt.get(live.attempt);
    if (previous && (isTerminal(previous.phase) || previous.jobName !== live.jobName)) continue;
    byAttempt.set(live.attempt, {
      ...live,
      startTime: live.startTime ?? previous?.startTime,
      message: live.message ?? previous?.message,
    });
  }
  return [...byAttempt.values()].sort((a, b) => a.attempt - b.attempt);
}

/** Decides the phase and the next step from the attempts so far. */
export function planRestore(
  history: AttemptRecord[],
  totalAttempts: number,
  now: Date,
): RestorePlan {
  const current = history.at(-1);
  if (!current) return { phase: 'Pending', next: { attempt: 1, dueAt: now } };
  switch (current.phase) {
    case 'Succeeded':
      return { phase: 'Succeeded', current, completionTime: current.completionTime };
    case 'Running':
      return { phase: 'Running', current };
    case 'Pending':
      return { phase: current.attempt === 1 ? 'Pending' : 'Retrying', current };
    case 'Failed': {
      if (current.attempt >= totalAttempts) {
        return { phase: 'Failed', current, completionTime: current.completionTime };
      }
      const failedAt = Date.parse(current.completionTime ?? '') || now.getTime();
      const dueAt = new Date(failedAt + retryDelayMs(current.attempt));
      return { phase: 'Retrying', current, next: { attempt: current.attempt + 1, dueAt } };
    }
  }
}

/**
 * Finished Jobs to delete so that at most `keepSucceeded` succeeded and `keepFailed` failed ones
 * remain, newest kept. Unfinished Jobs are never chosen.
 */
export function jobsToPrune(
  history: AttemptRecord[],
  liveJobNames: ReadonlySet<string>,
  keepSucceeded: number,
  keepFailed: number,
): string[] {
  const newestFirst = history.filter((h) => liveJobNames.has(h.jobName)).reverse();
  const prune = (phase: AttemptPhase, keep: number) =>
    newestFirst
      .filter((h) => h.phase === phase)
      .slice(Math.max(0, keep))
      .map((h) => h.jobName);
  return [...prune('Succeeded', keepSucceeded), ...prune('Failed', keepFailed)];
}
