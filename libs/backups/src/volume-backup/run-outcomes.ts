import type { KubeClient } from '@platform/kube';
import { type BackupSummary, parseBackupSummary } from '../render/volume-backup.js';
import type { BackupRun } from './backup-runs.js';
import { failureExcerpt, type JobContainer, resticTerminationMessage } from './job-termination.js';

/** An init container whose failure ends a run before restic starts, and how it is named. */
export interface PreparingContainer extends JobContainer {
  /** Put before its last words, e.g. `rclone: `. */
  prefix: string;
}

/**
 * What a finished backup Job reported through its pod's termination message, read at most once
 * per reconcile and only for runs whose outcome is news.
 */
export class RunOutcomes {
  private readonly summaries = new Map<string, Promise<BackupSummary | undefined>>();
  private readonly failures = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    /** Looked at when restic left no words: it never ran. */
    private readonly preparing: PreparingContainer[] = [],
  ) {}

  summary(run: BackupRun): Promise<BackupSummary | undefined> {
    let found = this.summaries.get(run.job);
    if (!found) {
      found = resticTerminationMessage(this.client, this.namespace, run.job, true).then(
        parseBackupSummary,
      );
      this.summaries.set(run.job, found);
    }
    return found;
  }

  /**
   * The restic error that ended a failed run, else that of a preparing container that failed,
   * else the Job's own reason.
   */
  failureDetail(run: BackupRun): Promise<string | undefined> {
    let found = this.failures.get(run.job);
    if (!found) {
      found = this.lastWords(run);
      this.failures.set(run.job, found);
    }
    return found;
  }

  private async lastWords(run: BackupRun): Promise<string | undefined> {
    const restic = await resticTerminationMessage(this.client, this.namespace, run.job, false);
    const excerpt = failureExcerpt(restic);
    if (excerpt) return excerpt;
    for (const container of this.preparing) {
      const message = await resticTerminationMessage(
        this.client,
        this.namespace,
        run.job,
        false,
        container,
      );
      const words = failureExcerpt(message);
      if (words) return `${container.prefix}${words}`;
    }
    return run.failureReason;
  }
}
