import type { KubeObject } from '@platform/kube';

/** The parts of a batch/v1 Job status this operator reads (times may arrive as strings or Dates). */
export interface JobStatusView {
  active?: number;
  startTime?: string | Date;
  completionTime?: string | Date;
  conditions?: Array<{
    type: string;
    status: string;
    reason?: string;
    message?: string;
    lastTransitionTime?: string | Date;
  }>;
}

export type JobObject = KubeObject<unknown, JobStatusView>;

export type BackupRunPhase = 'Running' | 'Succeeded' | 'Failed';

/** One backup Job, as far as the VolumeBackup status and its webhooks care. */
export interface BackupRun {
  job: string;
  phase: BackupRunPhase;
  createdAt: number;
  startTime?: string;
  /** When the Job completed, or when it was marked failed. */
  completionTime?: string;
  /** The Job's own account of a failure (its Failed condition). */
  failureReason?: string;
}

export interface BackupRuns {
  /** A backup Job that has not finished; the newest when there are several. */
  active?: BackupRun;
  /** Finished runs, oldest first. */
  finished: BackupRun[];
  latestFinished?: BackupRun;
  latestSucceeded?: BackupRun;
}

/** A Kubernetes time (RFC 3339, whole seconds) from whatever form the client delivered. */
export function kubeTime(value: string | Date | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = new Date(value).getTime();
  if (Number.isNaN(ms)) return undefined;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function backupRun(job: JobObject): BackupRun {
  const status = job.status ?? {};
  const condition = (type: string) =>
    status.conditions?.find((c) => c.type === type && c.status === 'True');
  const complete = condition('Complete');
  const failed = condition('Failed');
  const base = {
    job: job.metadata.name ?? '',
    createdAt: new Date(job.metadata.creationTimestamp ?? 0).getTime() || 0,
    startTime: kubeTime(status.startTime),
  };
  if (complete) {
    return {
      ...base,
      phase: 'Succeeded',
      completionTime: kubeTime(status.completionTime ?? complete.lastTransitionTime),
    };
  }
  if (failed) {
    const reason = [failed.reason, failed.message].filter(Boolean).join(': ');
    return {
      ...base,
      phase: 'Failed',
      completionTime: kubeTime(failed.lastTransitionTime),
      failureReason: reason || undefined,
    };
  }
  return { ...base, phase: 'Running' };
}

function byAge(a: BackupRun, b: BackupRun): number {
  return a.createdAt - b.createdAt || a.job.localeCompare(b.job);
}

export function summarizeRuns(jobs: JobObject[]): BackupRuns {
  const runs = jobs.map(backupRun).sort(byAge);
  const finished = runs.filter((run) => run.phase !== 'Running');
  return {
    active: runs.filter((run) => run.phase === 'Running').at(-1),
    finished,
    latestFinished: finished.at(-1),
    latestSucceeded: finished.filter((run) => run.phase === 'Succeeded').at(-1),
  };
}

/**
 * The finished runs not yet reported, given the last one that was. When that one is no longer
 * among the Jobs (history limits removed it) or none was ever reported, only the newest counts:
 * older outcomes are history by then, not news.
 */
export function unreportedRuns(runs: BackupRuns, lastReported: string | undefined): BackupRun[] {
  if (!runs.latestFinished || runs.latestFinished.job === lastReported) return [];
  const index = runs.finished.findIndex((run) => run.job === lastReported);
  if (index < 0) return [runs.latestFinished];
  return runs.finished.slice(index + 1);
}
