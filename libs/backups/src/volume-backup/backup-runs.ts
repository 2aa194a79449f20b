import { type KindRef, type KubeClient, KubeApiError, type KubeObject } from '@platform/kube';

/**
 * The newest finished backup Job whose outcome went to the webhooks. Kept on the resource, and
 * claimed with a resourceVersion precondition once its deliveries are in status, so a restarted
 * operator or another replica never queues the same Job twice (a delivery queued again after a
 * crash in between has the same id and is one delivery).
 */
export const LAST_NOTIFIED_JOB_ANNOTATION = 'backups.k8s.neutral.com/last-notified-job';

/**
 * Records `newest` as the last reported run of a scheduled backup (VolumeBackup, S3Backup);
 * undefined when the resource changed meanwhile (another writer got there first, and the watch
 * brings the newer version for another pass).
 */
export async function claimNewestRun<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef,
  backup: T,
  newest: BackupRun,
): Promise<T | undefined> {
  try {
    return await client.mergePatch<T>(
      kind,
      backup.metadata.namespace ?? '',
      backup.metadata.name ?? '',
      {
        metadata: {
          resourceVersion: backup.metadata.resourceVersion,
          annotations: { [LAST_NOTIFIED_JOB_ANNOTATION]: newest.job },
        },
      },
    );
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 409) return undefined;
    throw error;
  }
}

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
