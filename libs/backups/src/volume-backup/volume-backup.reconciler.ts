import { Injectable } from '@nestjs/common';
import {
  CoreKinds,
  ensureObject,
  KubeApiError,
  type KindRef,
  type KubeObject,
  type ObjectName,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  writeStatus,
} from '@platform/kube';
import { type DefaultedVolumeBackupSpec, withVolumeBackupDefaults } from '../api/defaults.js';
import { VolumeBackupKind } from '../api/kinds.js';
import type { VolumeBackup } from '../api/types.js';
import { RenderError } from '../render/errors.js';
import {
  BackupLabels,
  renderVolumeBackup,
  volumeBackupChildNames,
} from '../render/volume-backup.js';
import { VolumeBackupMetrics } from './backup-metrics.js';
import { BackupReporting } from './backup-reporting.js';
import {
  claimNewestRun,
  type JobObject,
  LAST_NOTIFIED_JOB_ANNOTATION,
  summarizeRuns,
  unreportedRuns,
} from './backup-runs.js';
import {
  type BackupProblem,
  type BackupStatusFields,
  buildBackupStatus,
  buildProblemStatus,
  needsFailureDetail,
  needsSummary,
} from './backup-status.js';
import { volumeBackupProblem } from './backup-validation.js';
import { RunOutcomes } from './run-outcomes.js';
import {
  KubeconfigUnavailable,
  localCluster,
  RemoteClusterClients,
  RemoteClusterUnavailable,
  remoteCluster,
  type TargetCluster,
} from './target-cluster.js';

export const CLEANUP_FINALIZER = 'backups.k8s.neutral.com/cleanup';
export { LAST_NOTIFIED_JOB_ANNOTATION } from './backup-runs.js';
/** Nothing watches a remote cluster: its Jobs are looked at this often. */
export const REMOTE_POLL_MS = 60_000;

type DefaultedSpec = DefaultedVolumeBackupSpec;

/**
 * Keeps a VolumeBackup's CronJobs (backup, check, restore test) and claims (cache, restore
 * test) as rendered from its spec, in the operator's cluster or the one its kubeconfig Secret
 * names, and reports the Jobs' outcomes (backup, check, restore test) in its status, in
 * metrics, in Events and to its webhooks.
 */
@Injectable()
export class VolumeBackupReconciler implements Reconciler<VolumeBackup> {
  readonly kind = VolumeBackupKind;
  readonly owns = [CoreKinds.CronJob, CoreKinds.Job, CoreKinds.PersistentVolumeClaim];
  /** Only what carries a VolumeBackup's label is cached, not every Job and claim of the cluster. */
  readonly ownsSelector = BackupLabels.volumeBackup;
  readonly finalizer = CLEANUP_FINALIZER;

  constructor(
    private readonly remotes: RemoteClusterClients,
    private readonly reporting: BackupReporting,
    private readonly metrics: VolumeBackupMetrics,
  ) {}

  /**
   * The backup Jobs are the CronJob controller's, which makes the CronJob their controller;
   * their label names the VolumeBackup. (The CronJob's own status follows a Job's end only
   * after the CronJob controller's next sync.)
   */
  ownerOf(child: KubeObject): ObjectName | undefined {
    const name = child.metadata.labels?.[BackupLabels.volumeBackup];
    return name ? { name } : undefined;
  }

  async reconcile(
    backup: VolumeBackup,
    context: ReconcileContext,
  ): Promise<ReconcileResult | void> {
    const { namespace, name } = identify(backup);
    const spec = withVolumeBackupDefaults(backup.spec!, namespace);
    const previous: BackupStatusFields | undefined = backup.status;
    this.metrics.recordResults(namespace, name, previous);
    const report = (problem: BackupProblem) =>
      writeStatus(
        context,
        VolumeBackupKind,
        backup,
        buildProblemStatus(previous, problem, context.clock.now()),
      );

    const problem = volumeBackupProblem({ namespace, name }, spec);
    if (problem) {
      await report(problem);
      return;
    }

    let target: TargetCluster;
    try {
      target = await this.targetFor(context, backup, spec);
    } catch (error) {
      if (!(error instanceof KubeconfigUnavailable || error instanceof RemoteClusterUnavailable)) {
        throw error;
      }
      await report({ reason: error.name, message: error.message });
      return { requeueAfterMs: REMOTE_POLL_MS };
    }

    try {
      await this.applyChildren(target, backup, spec);
    } catch (error) {
      const refused =
        error instanceof KubeApiError && (error.status === 422 || error.status === 400);
      if (!refused && !(error instanceof RenderError)) throw error;
      await report(
        error instanceof RenderError
          ? { reason: error.reason, message: error.message }
          : {
              reason: 'ChildRejected',
              message: `the API server refused a child object: ${error.message}`,
            },
      );
      return target.remote ? { requeueAfterMs: REMOTE_POLL_MS } : undefined;
    }
    // A backup that moved to another cluster leaves nothing behind in this one.
    if (target.remote) await this.removeChildren(localCluster(context, namespace, name), backup);

    const allJobs = target.children<JobObject>(CoreKinds.Job);
    const jobs = allJobs.filter((job) => job.metadata.labels?.[BackupLabels.jobType] === 'backup');
    const runs = summarizeRuns(jobs);
    const outcomes = new RunOutcomes(target.context.client, namespace);
    const summary =
      needsSummary(runs, previous) && runs.latestSucceeded
        ? await outcomes.summary(runs.latestSucceeded)
        : undefined;
    const failureDetail =
      needsFailureDetail(runs, previous) && runs.latestFinished
        ? await outcomes.failureDetail(runs.latestFinished)
        : undefined;
    const status = buildBackupStatus({
      schedule: spec.schedule,
      suspended: spec.suspended,
      runs,
      previous,
      summary,
      failureDetail,
      now: context.clock.now(),
    });

    const unreported = unreportedRuns(
      runs,
      backup.metadata.annotations?.[LAST_NOTIFIED_JOB_ANNOTATION],
    );
    const collected = await this.reporting.collect({
      context,
      backup,
      spec,
      jobs: allJobs,
      backupRuns: runs,
      unreported,
      outcomes,
      status,
      jobsClient: target.context.client,
    });
    // Deliveries are recorded before anything is sent: what is in status outlasts a restart.
    await writeStatus(context, VolumeBackupKind, backup, collected.status);
    let live = backup;
    if (unreported.length > 0) {
      const claimed = await claimNewestRun(
        context.client,
        VolumeBackupKind,
        backup,
        unreported.at(-1)!,
      );
      if (claimed) live = claimed;
    }
    await this.reporting.emit(context, collected.events);
    const sent = await this.reporting.sendDue(context, live, spec, collected.status);
    await writeStatus(context, VolumeBackupKind, live, sent.status);
    this.metrics.recordResults(namespace, name, sent.status);
    const waits = [sent.requeueAfterMs, target.remote ? REMOTE_POLL_MS : undefined].filter(
      (ms): ms is number => ms !== undefined,
    );
    return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : undefined;
  }

  async finalize(backup: VolumeBackup, context: ReconcileContext): Promise<void> {
    const { namespace, name } = identify(backup);
    const spec = withVolumeBackupDefaults(backup.spec!, namespace);
    if (!spec.kubeconfig.inCluster && spec.kubeconfig.secretRef?.name) {
      try {
        await this.removeChildren(await this.targetFor(context, backup, spec), backup);
      } catch (error) {
        if (!(error instanceof KubeconfigUnavailable)) throw error;
        // Without credentials nothing there can be reached; holding the deletion would not change that.
        context.logger.warn?.(
          `VolumeBackup ${namespace}/${name}: remote backup objects left in place: ${error.message}`,
          'VolumeBackupReconciler',
        );
      }
    }
    // Garbage collection would remove these too; deleting them now stops a backup starting meanwhile.
    await this.removeChildren(localCluster(context, namespace, name), backup);
    this.metrics.forget(namespace, name);
  }

  private async targetFor(
    context: ReconcileContext,
    backup: VolumeBackup,
    spec: DefaultedSpec,
  ): Promise<TargetCluster> {
    const { namespace, name } = identify(backup);
    const { inCluster, secretRef } = spec.kubeconfig;
    if (inCluster || !secretRef) return localCluster(context, namespace, name);
    const client = await this.remotes.clientFor(context, {
      name: secretRef.name,
      namespace: secretRef.namespace || namespace,
      key: secretRef.key,
    });
    return remoteCluster(context, client, namespace, name);
  }

  private async applyChildren(
    target: TargetCluster,
    backup: VolumeBackup,
    spec: DefaultedSpec,
  ): Promise<void> {
    const rendered = renderVolumeBackup({ ...backup, spec }, { ownerReferences: !target.remote });
    const desired: Array<[KindRef, KubeObject]> = [
      ...rendered.cronJobs.map(
        (o) => [CoreKinds.CronJob, o as KubeObject] as [KindRef, KubeObject],
      ),
      ...rendered.persistentVolumeClaims.map(
        (o) => [CoreKinds.PersistentVolumeClaim, o as KubeObject] as [KindRef, KubeObject],
      ),
    ];
    await Promise.all(desired.map(([kind, object]) => ensureObject(target.context, kind, object)));
    const wanted = new Set(desired.map(([kind, object]) => `${kind.kind}/${object.metadata.name}`));
    await this.removeChildren(
      target,
      backup,
      (kind, object) => !wanted.has(`${kind.kind}/${object.metadata.name}`),
    );
  }

  /**
   * Deletes this backup's CronJobs and claims that `removable` allows; their Jobs and pods go
   * with the CronJobs (background propagation). Only objects under the names this operator
   * gives and carrying its label are touched; in the operator's own cluster they must also be
   * owned by this backup.
   */
  private async removeChildren(
    target: TargetCluster,
    backup: VolumeBackup,
    removable: (kind: KindRef, object: KubeObject) => boolean = () => true,
  ): Promise<void> {
    const { namespace, name } = identify(backup);
    const ours = (object: KubeObject) =>
      target.remote ||
      object.metadata.ownerReferences?.some((ref) => ref.uid === backup.metadata.uid);
    const names = volumeBackupChildNames(name);
    const named = (candidates: string[]) => (object: KubeObject) =>
      candidates.includes(object.metadata.name ?? '');
    const doomed: Array<[KindRef, KubeObject]> = [
      ...target
        .children(CoreKinds.CronJob)
        .filter(
          (o) =>
            named([names.backupCronJob, names.checkCronJob, names.restoreTestCronJob])(o) &&
            ours(o) &&
            removable(CoreKinds.CronJob, o),
        )
        .map((o) => [CoreKinds.CronJob, o] as [KindRef, KubeObject]),
      ...target
        .children(CoreKinds.PersistentVolumeClaim)
        .filter(
          (o) =>
            named([names.cacheClaim, names.restoreTestClaim])(o) &&
            ours(o) &&
            removable(CoreKinds.PersistentVolumeClaim, o),
        )
        .map((o) => [CoreKinds.PersistentVolumeClaim, o] as [KindRef, KubeObject]),
    ];
    await Promise.all(
      doomed.map(([kind, object]) =>
        target.context.client.delete(kind, namespace, object.metadata.name!, {
          propagationPolicy: 'Background',
        }),
      ),
    );
  }
}

function identify(backup: KubeObject): { namespace: string; name: string } {
  return { namespace: backup.metadata.namespace ?? '', name: backup.metadata.name ?? '' };
}
