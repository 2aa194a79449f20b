import { Injectable } from '@nestjs/common';
import {
  CoreKinds,
  isKubeApiError,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  writeStatus,
} from '@platform/kube';
import { type DefaultedVolumeRestoreSpec, withVolumeRestoreDefaults } from '../api/defaults.js';
import { VolumeBackupKind, VolumeRestoreKind } from '../api/kinds.js';
import type {
  RestoreJobRecord,
  VolumeBackup,
  VolumeRestore,
  VolumeRestoreStatus,
} from '../api/types.js';
import { BackupLabels } from '../render/volume-backup.js';
import { RenderError } from '../render/errors.js';
import type { Job } from '../render/volume-restore.js';
import { RunEvents } from '../volume-backup/backup-events.js';
import { KubeconfigUnavailable, RemoteClusterClients } from '../volume-backup/target-cluster.js';
import {
  type AttemptRecord,
  attemptOfJob,
  jobsToPrune,
  mergeHistory,
  observeJob,
  planRestore,
  restoreNameProblem,
} from './restore-attempts.js';
import {
  type JobObject,
  localRestoreCluster,
  remoteRestoreCluster,
  type RestoreCluster,
} from './restore-cluster.js';
import { renderAttemptJob, startedWithOf } from './restore-jobs.js';
import { finalProgress, RestorePods } from './restore-pods.js';
import {
  isProblem,
  type RestoreProblem,
  restoreSource,
  sourceBackupRef,
  sourceInfoOf,
} from './restore-source.js';
import { buildRestoreStatus, problemStatus } from './restore-status.js';
import { prepareTarget, targetProblem } from './restore-target.js';

/** Held while a restore's Jobs in another cluster (which no owner reference reaches) remain. */
export const RESTORE_CLEANUP_FINALIZER = 'backups.k8s.neutral.com/cleanup';
/** While a Job runs, its progress is read this often. */
export const RESTORE_PROGRESS_POLL_MS = 5_000;
/** Nothing watches a remote cluster: its Jobs are looked at this often. */
export const RESTORE_REMOTE_POLL_MS = 15_000;
const KUBECONFIG_RETRY_MS = 60_000;

const finished = (status?: VolumeRestoreStatus) =>
  status?.phase === 'Succeeded' || status?.phase === 'Failed';

/**
 * Runs a VolumeRestore once: resolves its source, creates or finds the target claim, then runs
 * restore Jobs `<name>-restore-<n>`, a new one after each failed Job while retries remain, and
 * reports progress, attempts and the outcome in the status. A finished restore is never run
 * again, and its spec is read only until the first Job exists.
 */
@Injectable()
export class VolumeRestoreReconciler implements Reconciler<VolumeRestore> {
  readonly kind = VolumeRestoreKind;
  readonly owns = [CoreKinds.Job, CoreKinds.PersistentVolumeClaim];
  /** Only what carries a VolumeRestore's label is cached, not every Job and claim of the cluster. */
  readonly ownsSelector = BackupLabels.volumeRestore;
  readonly finalizer = RESTORE_CLEANUP_FINALIZER;

  constructor(
    private readonly remotes: RemoteClusterClients,
    private readonly events: RunEvents,
  ) {}

  async reconcile(
    restore: VolumeRestore,
    context: ReconcileContext,
  ): Promise<ReconcileResult | void> {
    const previous = restore.status;
    const current = withVolumeRestoreDefaults(restore.spec!);
    const report = async (problem: RestoreProblem) => {
      await writeStatus(
        context,
        VolumeRestoreKind,
        restore,
        problemStatus(previous, problem, context.clock.now()),
      );
      return problem.retryAfterMs === undefined
        ? undefined
        : { requeueAfterMs: problem.retryAfterMs };
    };
    const started = (previous?.jobInfo?.jobHistory?.length ?? 0) > 0;
    if (!started && !finished(previous)) {
      // Checked before anything is created: a spec that cannot work fails without side effects.
      const tooLong = restoreNameProblem(restore.metadata.name!, current.jobConfig.retries);
      if (tooLong) return report(tooLong);
      const invalid = sourceBackupRef(restore);
      if (isProblem(invalid)) return report(invalid);
      const target = targetProblem(current);
      if (target) return report(target);
    }

    let cluster: RestoreCluster;
    try {
      cluster = await this.clusterFor(context, restore, current);
    } catch (error) {
      if (!(error instanceof KubeconfigUnavailable)) throw error;
      if (finished(previous)) return undefined;
      if (started) return { requeueAfterMs: KUBECONFIG_RETRY_MS };
      return report({
        reason: 'KubeconfigUnavailable',
        message: error.message,
        retryAfterMs: KUBECONFIG_RETRY_MS,
      });
    }
    const jobs = cluster.jobs();
    if (finished(previous)) {
      await this.prune(cluster, restore, recordedHistory(previous), jobs, true);
      return;
    }

    const now = context.clock.now();
    const name = restore.metadata.name ?? '';
    const observed = jobs.flatMap((job) => {
      const attempt = attemptOfJob(name, job.metadata.name);
      return attempt === undefined ? [] : [observeJob(job, attempt, now)];
    });
    const recorded = recordedHistory(previous);
    const history = mergeHistory(recorded, observed);
    let startedWith = startedWithOf(name, jobs);
    let { sourceInfo, targetInfo } = previous ?? {};

    if (history.length === 0) {
      const source = await this.source(context, restore);
      if (isProblem(source)) return report(source);
      startedWith = { spec: current, source };
      // Rendered once before the claim is made, so a spec the Job cannot express creates nothing.
      const unrenderable = renderProblem(() =>
        renderAttemptJob(restore, startedWith!, 1, !cluster.remote, undefined),
      );
      if (unrenderable) return report(unrenderable);
      const target = await refusedAsProblem(() => prepareTarget(cluster, restore, current));
      if (isProblem(target)) return report(target);
      sourceInfo = sourceInfoOf(restore, source, current.restoreSpec.paths);
      targetInfo = target;
    }

    const totalAttempts =
      previous?.jobInfo?.totalAttempts ?? (startedWith?.spec ?? current).jobConfig.retries + 1;
    let plan = planRestore(history, totalAttempts, now);
    if (plan.next && plan.next.dueAt.getTime() <= now.getTime()) {
      if (!startedWith) {
        // Every Job of this restore is gone (deleted by hand): fall back to what the spec says now.
        const source = await this.source(context, restore);
        if (isProblem(source)) return report(source);
        startedWith = { spec: current, source };
      }
      const job = renderAttemptJob(
        restore,
        startedWith,
        plan.next.attempt,
        !cluster.remote,
        targetInfo?.pvcName,
      );
      const refused = await refusedAsProblem(() => this.createJob(cluster, job));
      if (isProblem(refused)) return report(refused);
      history.push({ jobName: job.metadata.name, attempt: plan.next.attempt, phase: 'Pending' });
      plan = planRestore(history, totalAttempts, now);
    }

    const pods = new RestorePods(cluster.context.client, restore.metadata.namespace ?? '');
    await describeNewFailures(history, recorded, pods);
    let progress = previous?.progress;
    if (plan.phase === 'Running' && plan.current) {
      progress = (await pods.progress(plan.current.jobName)) ?? progress;
    } else if (plan.phase === 'Succeeded' && plan.current) {
      const summary = await pods.summary(plan.current.jobName);
      progress = finalProgress(summary, progress);
      if (summary) {
        sourceInfo = {
          ...sourceInfo,
          snapshotId: summary.snapshotId,
          ...(summary.snapshotDate ? { snapshotDate: summary.snapshotDate } : {}),
        };
      }
    }

    const status = buildRestoreStatus({
      plan,
      history,
      totalAttempts,
      sourceInfo,
      targetInfo,
      progress,
      previous,
      now,
    });
    await writeStatus(context, VolumeRestoreKind, restore, status);
    await this.recordEvents(context, restore, previous?.jobInfo?.jobHistory, status);
    await this.prune(
      cluster,
      restore,
      history,
      jobs,
      plan.phase === 'Succeeded' || plan.phase === 'Failed',
    );

    if (plan.phase === 'Running') return { requeueAfterMs: RESTORE_PROGRESS_POLL_MS };
    if (plan.next)
      return { requeueAfterMs: Math.max(1000, plan.next.dueAt.getTime() - now.getTime()) };
    if (cluster.remote && !finished(status)) return { requeueAfterMs: RESTORE_REMOTE_POLL_MS };
    return undefined;
  }

  /**
   * An Event per attempt that started, succeeded or failed since the status before: compared
   * with what status recorded, so resyncs and restarts do not repeat them.
   */
  private async recordEvents(
    context: ReconcileContext,
    restore: VolumeRestore,
    before: RestoreJobRecord[] | undefined,
    status: VolumeRestoreStatus,
  ): Promise<void> {
    const known = new Map((before ?? []).map((entry) => [entry.jobName, entry.phase]));
    for (const entry of status.jobInfo?.jobHistory ?? []) {
      if (!entry.jobName || known.get(entry.jobName) === entry.phase) continue;
      const what = `Restore job ${entry.jobName} (attempt ${entry.attempt})`;
      const event =
        entry.phase === 'Running'
          ? { reason: 'RestoreStarted', message: `${what} started` }
          : entry.phase === 'Succeeded'
            ? { reason: 'RestoreSucceeded', message: `${what} succeeded` }
            : entry.phase === 'Failed'
              ? {
                  reason: 'RestoreFailed',
                  message: `${what} failed: ${entry.message ?? 'the Job failed'}`,
                  warning: true,
                }
              : undefined;
      if (!event) continue;
      try {
        await this.events.emit(
          context.client,
          { object: restore, job: entry.jobName, ...event },
          context.clock.now(),
        );
      } catch (error) {
        context.logger.warn?.(
          `event ${event.reason} not recorded: ${(error as Error).message}`,
          'VolumeRestoreReconciler',
        );
      }
    }
  }

  /** Jobs in another cluster have no owner there to be collected with: delete them here. */
  async finalize(restore: VolumeRestore, context: ReconcileContext): Promise<void> {
    const spec = withVolumeRestoreDefaults(restore.spec!);
    if (spec.kubeconfig.inCluster || !spec.kubeconfig.secretRef?.name) return;
    let cluster: RestoreCluster;
    try {
      cluster = await this.clusterFor(context, restore, spec);
    } catch (error) {
      if (!(error instanceof KubeconfigUnavailable)) throw error;
      // Without credentials nothing there can be reached; holding the deletion would not change that.
      context.logger.warn?.(
        `VolumeRestore ${restore.metadata.namespace}/${restore.metadata.name}: remote restore Jobs left in place: ${error.message}`,
        VolumeRestoreReconciler.name,
      );
      return;
    }
    await Promise.all(
      cluster.jobs().map((job) =>
        cluster.context.client.delete(
          CoreKinds.Job,
          job.metadata.namespace,
          job.metadata.name ?? '',
          {
            propagationPolicy: 'Background',
          },
        ),
      ),
    );
  }

  private async clusterFor(
    context: ReconcileContext,
    restore: VolumeRestore,
    spec: DefaultedVolumeRestoreSpec,
  ): Promise<RestoreCluster> {
    const { inCluster, secretRef } = spec.kubeconfig;
    if (inCluster || !secretRef?.name) return localRestoreCluster(context, restore);
    const client = await this.remotes.clientFor(context, {
      name: secretRef.name,
      namespace: secretRef.namespace || (restore.metadata.namespace ?? ''),
      key: secretRef.key,
    });
    return remoteRestoreCluster(context, client, restore);
  }

  private async source(context: ReconcileContext, restore: VolumeRestore) {
    const ref = sourceBackupRef(restore);
    if (isProblem(ref)) return ref;
    const backup = ref
      ? await context.client.get<VolumeBackup>(VolumeBackupKind, ref.namespace, ref.name)
      : undefined;
    return restoreSource(restore, ref, backup);
  }

  /** Creating a Job that exists means an earlier pass created it and the cache has not caught up. */
  private async createJob(cluster: RestoreCluster, job: Job): Promise<void> {
    try {
      await cluster.context.client.create(CoreKinds.Job, job);
    } catch (error) {
      if (!isKubeApiError(error, 409)) throw error;
    }
  }

  /**
   * Deletes finished Jobs beyond keepSuccessfulJobs / keepFailedJobs (their history stays in the
   * status). Only attempts the status already records are pruned, and the newest attempt only
   * once the restore finished, so no pass can lose track of an attempt or of the started spec.
   */
  private async prune(
    cluster: RestoreCluster,
    restore: VolumeRestore,
    history: AttemptRecord[],
    jobs: JobObject[],
    restoreFinished: boolean,
  ): Promise<void> {
    if (jobs.length === 0) return;
    const limits = (
      startedWithOf(restore.metadata.name ?? '', jobs)?.spec ??
      withVolumeRestoreDefaults(restore.spec!)
    ).jobConfig;
    const candidates = restoreFinished ? history : history.slice(0, -1);
    const live = new Set(jobs.map((job) => job.metadata.name ?? ''));
    const doomed = jobsToPrune(candidates, live, limits.keepSuccessfulJobs, limits.keepFailedJobs);
    await Promise.all(
      doomed.map((jobName) =>
        cluster.context.client.delete(CoreKinds.Job, restore.metadata.namespace, jobName, {
          propagationPolicy: 'Background',
        }),
      ),
    );
  }
}

function recordedHistory(status: VolumeRestoreStatus | undefined): AttemptRecord[] {
  // The schema does not require the fields the operator always writes: an entry without its
  // job or attempt was not written by it and names nothing to follow.
  return (status?.jobInfo?.jobHistory ?? []).flatMap(({ jobName, attempt, phase, ...rest }) =>
    jobName !== undefined && attempt !== undefined
      ? [{ ...rest, jobName, attempt, phase: phase ?? 'Pending' }]
      : [],
  );
}

/** Adds restic's last words to attempts that failed since the status was last written. */
async function describeNewFailures(
  history: AttemptRecord[],
  recorded: AttemptRecord[],
  pods: RestorePods,
): Promise<void> {
  const known = new Set(recorded.filter((r) => r.phase === 'Failed').map((r) => r.attempt));
  for (const entry of history) {
    if (entry.phase !== 'Failed' || known.has(entry.attempt)) continue;
    const detail = await pods.failure(entry.jobName);
    if (detail) entry.message = `${entry.message ?? 'job failed'}; restic: ${detail}`;
  }
}

/** A spec the render cannot turn into a Job, as a final problem. */
function renderProblem(render: () => unknown): RestoreProblem | undefined {
  try {
    render();
    return undefined;
  } catch (error) {
    if (error instanceof RenderError) return { reason: error.reason, message: error.message };
    throw error;
  }
}

/** An object the API server refuses (invalid name, quota, admission) fails the restore. */
async function refusedAsProblem<T>(write: () => Promise<T>): Promise<T | RestoreProblem> {
  try {
    return await write();
  } catch (error) {
    if (isKubeApiError(error, 422) || isKubeApiError(error, 400)) {
      return {
        reason: 'ChildRejected',
        message: `the API server refused an object: ${error.message}`,
      };
    }
    throw error;
  }
}
