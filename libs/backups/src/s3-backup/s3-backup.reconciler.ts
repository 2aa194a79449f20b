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
import { type DefaultedS3BackupSpec, withS3BackupDefaults } from '../api/s3-backup-defaults.js';
import { S3BackupKind } from '../api/kinds.js';
import type { S3Backup, S3BackupStatus } from '../api/types.js';
import { RenderError } from '../render/errors.js';
import { BackupLabels } from '../render/pod.js';
import { renderS3Backup, s3BackupChildNames, SYNC_CONTAINER } from '../render/s3-backup.js';
import {
  type BackupRuns,
  claimNewestRun,
  type JobObject,
  LAST_NOTIFIED_JOB_ANNOTATION,
  summarizeRuns,
  unreportedRuns,
} from '../volume-backup/backup-runs.js';
import {
  type BackupProblem,
  needsFailureDetail,
  needsSummary,
} from '../volume-backup/backup-status.js';
import { RunOutcomes } from '../volume-backup/run-outcomes.js';
import { CLEANUP_FINALIZER } from '../volume-backup/volume-backup.reconciler.js';
import { S3BackupMetrics } from './s3-backup-metrics.js';
import { S3BackupReporting } from './s3-backup-reporting.js';
import {
  asBackupStatusFields,
  buildS3BackupStatus,
  buildS3ProblemStatus,
} from './s3-backup-status.js';
import { s3BackupProblem } from './s3-backup-validation.js';

/** A failed copy ends the run before restic starts: rclone's last words explain it. */
const SYNC_FAILURE = { name: SYNC_CONTAINER, init: true, prefix: 'rclone: ' };

/**
 * Keeps an S3Backup's CronJob (and the claim of its copy) as rendered from its spec, and
 * reports its Jobs' outcomes in its status, in metrics, in Events and to its webhooks, the way
 * VolumeBackup does (same runs, status, events and signed durable deliveries).
 *
 * Why rclone then restic: restic's `--stdin` takes one stream, which cannot carry a bucket's
 * tree of objects, so the bucket (or its prefix) is first copied into a directory. rclone is
 * maintained, speaks S3 natively and `sync` fetches only what changed, which pays off when the
 * copy lives on the cache claim across runs. restic then backs the directory up like any
 * volume, with the same retention, cache and reporting as a VolumeBackup.
 */
@Injectable()
export class S3BackupReconciler implements Reconciler<S3Backup> {
  readonly kind = S3BackupKind;
  readonly owns = [CoreKinds.CronJob, CoreKinds.Job, CoreKinds.PersistentVolumeClaim];
  /** Only what carries an S3Backup's label is cached. */
  readonly ownsSelector = BackupLabels.s3Backup;
  readonly finalizer = CLEANUP_FINALIZER;

  constructor(
    private readonly reporting: S3BackupReporting,
    private readonly metrics: S3BackupMetrics,
  ) {}

  /** The backup Jobs are the CronJob controller's; their label names the S3Backup. */
  ownerOf(child: KubeObject): ObjectName | undefined {
    const name = child.metadata.labels?.[BackupLabels.s3Backup];
    return name ? { name } : undefined;
  }

  async reconcile(backup: S3Backup, context: ReconcileContext): Promise<ReconcileResult | void> {
    const { namespace, name } = identify(backup);
    const spec = withS3BackupDefaults(backup.spec!, namespace);
    const previous = backup.status;
    this.metrics.recordResults(namespace, name, previous);
    const report = (problem: BackupProblem) =>
      writeStatus(
        context,
        S3BackupKind,
        backup,
        buildS3ProblemStatus(previous, problem, context.clock.now()),
      );

    const problem = s3BackupProblem({ namespace, name }, spec);
    if (problem) return void (await report(problem));
    try {
      await this.applyChildren(context, backup, spec);
    } catch (error) {
      const refused =
        error instanceof KubeApiError && (error.status === 422 || error.status === 400);
      if (!refused && !(error instanceof RenderError)) throw error;
      return void (await report(
        error instanceof RenderError
          ? { reason: error.reason, message: error.message }
          : {
              reason: 'ChildRejected',
              message: `the API server refused a child object: ${error.message}`,
            },
      ));
    }

    const { runs, outcomes, status } = await this.observeRuns(context, backup, spec);
    const unreported = unreportedRuns(
      runs,
      backup.metadata.annotations?.[LAST_NOTIFIED_JOB_ANNOTATION],
    );
    const collected = await this.reporting.collect({
      context,
      backup,
      spec,
      runs,
      unreported,
      outcomes,
      status,
    });
    // Deliveries are recorded before anything is sent: what is in status outlasts a restart.
    await writeStatus(context, S3BackupKind, backup, collected.status);
    let live = backup;
    if (unreported.length > 0) {
      const claimed = await claimNewestRun(
        context.client,
        S3BackupKind,
        backup,
        unreported.at(-1)!,
      );
      if (claimed) live = claimed;
    }
    await this.reporting.emit(context, collected.events);
    const sent = await this.reporting.sendDue(context, live, spec, collected.status);
    await writeStatus(context, S3BackupKind, live, sent.status);
    this.metrics.recordResults(namespace, name, sent.status);
    return sent.requeueAfterMs !== undefined ? { requeueAfterMs: sent.requeueAfterMs } : undefined;
  }

  /** The backup Jobs' runs and the status they make, reading their pods only for news. */
  private async observeRuns(
    context: ReconcileContext,
    backup: S3Backup,
    spec: DefaultedS3BackupSpec,
  ): Promise<{ runs: BackupRuns; outcomes: RunOutcomes; status: S3BackupStatus }> {
    const { namespace } = identify(backup);
    const previous = backup.status;
    const jobs = this.children<JobObject>(context, CoreKinds.Job, backup).filter(
      (job) => job.metadata.labels?.[BackupLabels.jobType] === 'backup',
    );
    const runs = summarizeRuns(jobs);
    const outcomes = new RunOutcomes(context.client, namespace, [SYNC_FAILURE]);
    const fields = asBackupStatusFields(previous);
    const status = buildS3BackupStatus({
      schedule: spec.schedule,
      suspended: spec.suspended,
      runs,
      previous,
      summary:
        needsSummary(runs, fields) && runs.latestSucceeded
          ? await outcomes.summary(runs.latestSucceeded)
          : undefined,
      failureDetail:
        needsFailureDetail(runs, fields) && runs.latestFinished
          ? await outcomes.failureDetail(runs.latestFinished)
          : undefined,
      now: context.clock.now(),
    });
    return { runs, outcomes, status };
  }

  async finalize(backup: S3Backup, context: ReconcileContext): Promise<void> {
    const { namespace, name } = identify(backup);
    // Garbage collection would remove these too; deleting them now stops a backup starting meanwhile.
    await this.removeChildren(context, backup);
    this.metrics.forget(namespace, name);
  }

  private children<T extends KubeObject>(
    context: ReconcileContext,
    kind: KindRef,
    backup: S3Backup,
  ): T[] {
    const { namespace, name } = identify(backup);
    return context.cache<T>(kind).list(namespace, { [BackupLabels.s3Backup]: name });
  }

  private async applyChildren(
    context: ReconcileContext,
    backup: S3Backup,
    spec: DefaultedS3BackupSpec,
  ): Promise<void> {
    const rendered = renderS3Backup(backup, spec, { ownerReferences: true });
    const desired: Array<[KindRef, KubeObject]> = [
      ...rendered.cronJobs.map(
        (o) => [CoreKinds.CronJob, o as KubeObject] as [KindRef, KubeObject],
      ),
      ...rendered.persistentVolumeClaims.map(
        (o) => [CoreKinds.PersistentVolumeClaim, o as KubeObject] as [KindRef, KubeObject],
      ),
    ];
    await Promise.all(desired.map(([kind, object]) => ensureObject(context, kind, object)));
    const wanted = new Set(desired.map(([kind, object]) => `${kind.kind}/${object.metadata.name}`));
    await this.removeChildren(
      context,
      backup,
      (kind, object) => !wanted.has(`${kind.kind}/${object.metadata.name}`),
    );
  }

  /**
   * Deletes this backup's CronJob and claim that `removable` allows (its Jobs and pods go with
   * the CronJob): only objects under the names this operator gives, carrying its label and
   * owned by this backup.
   */
  private async removeChildren(
    context: ReconcileContext,
    backup: S3Backup,
    removable: (kind: KindRef, object: KubeObject) => boolean = () => true,
  ): Promise<void> {
    const { namespace, name } = identify(backup);
    const names = s3BackupChildNames(name);
    const ours = (kind: KindRef, childName: string) => (object: KubeObject) =>
      object.metadata.name === childName &&
      object.metadata.ownerReferences?.some((ref) => ref.uid === backup.metadata.uid) === true &&
      removable(kind, object);
    const doomed: Array<[KindRef, KubeObject]> = [
      ...this.children(context, CoreKinds.CronJob, backup)
        .filter(ours(CoreKinds.CronJob, names.backupCronJob))
        .map((o) => [CoreKinds.CronJob, o] as [KindRef, KubeObject]),
      ...this.children(context, CoreKinds.PersistentVolumeClaim, backup)
        .filter(ours(CoreKinds.PersistentVolumeClaim, names.cacheClaim))
        .map((o) => [CoreKinds.PersistentVolumeClaim, o] as [KindRef, KubeObject]),
    ];
    await Promise.all(
      doomed.map(([kind, object]) =>
        context.client.delete(kind, namespace, object.metadata.name!, {
          propagationPolicy: 'Background',
        }),
      ),
    );
  }
}

function identify(backup: KubeObject): { namespace: string; name: string } {
  return { namespace: backup.metadata.namespace ?? '', name: backup.metadata.name ?? '' };
}
