import type { KubeClient } from '@platform/kube';
import { type BackupSummary, parseBackupSummary } from '../render/volume-backup.js';
import type { BackupRun } from './backup-runs.js';
import { failureExcerpt, resticTerminationMessage } from './job-termination.js';

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

  /** The restic error that ended a failed run, or the Job's own reason. */
  failureDetail(run: BackupRun): Promise<string | undefined> {
    let found = this.failures.get(run.job);
    if (!found) {
      found = resticTerminationMessage(this.client, this.namespace, run.job, false).then(
        (message) => failureExcerpt(message) ?? run.failureReason,
      );
      this.failures.set(run.job, found);
    }
    return found;
  }
}
