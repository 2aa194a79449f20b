import { Injectable } from '@nestjs/common';
import {
  CoreKinds,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
} from '@platform/kube';
import { OpenStackAuthRefused } from '@platform/openstack-client';
import { VolumeSnapshotBackupKind } from '../api/kinds.js';
import type { VolumeSnapshotBackup } from '../api/types.js';
import { RunEvents } from '../volume-backup/backup-events.js';
import { CinderClients } from './cinder-client.js';
import { CredentialsUnavailable } from './openstack-credentials.js';
import { cleaningUp, finished, removeRunObjects } from './run-ending.js';
import { creatingSnapshot, pending } from './snapshot-phases.js';
import { backingUp, creatingVolume } from './volume-phases.js';
import { RunState, type Step, WAITING_POLL_MS } from './run-state.js';
import { SNAPSHOT_BACKUP_LABEL } from './snapshot-backup-spec.js';
import {
  conditionOf,
  SnapshotConditions,
  TERMINAL_PHASES,
  withCondition,
} from './snapshot-backup-status.js';
import { SnapshotBackupMetrics } from './snapshot-backup-metrics.js';
import { SnapshotBackupWebhooks } from './snapshot-backup-webhooks.js';

export const SNAPSHOT_CLEANUP_FINALIZER = 'backups.k8s.neutral.com/snapshot-cleanup';
/** More phase changes than a run has: a pass never loops on a phase that does not move. */
const MAX_STEPS_PER_PASS = 10;

/**
 * Reconciles VolumeSnapshotBackups. Each one is one backup run, as a Velero Backup is (the
 * spec has no schedule): Pending → CreatingSnapshot (a Cinder snapshot of the claim's volume,
 * `force` for attached volumes, within `snapshot.timeout`) → CreatingVolume (a Cinder volume
 * from the snapshot, a persistent volume of it pre-bound to a temporary claim, within
 * `temporaryVolume.timeout`) → Backup (VolumeBackup's restic pod in a Job, reading the claim)
 * → Cleanup (the claim, the persistent volume and the Cinder volume; the snapshot too when the
 * run failed; older snapshots beyond `snapshot.retention`) → Succeeded or Failed, and the
 * webhooks. Every id a later step needs is in status before that step, and everything made in
 * Cinder carries the resource's uid in its metadata, so an operator restarted at any point
 * continues from status and adopts what it made but had not recorded yet. Deleting the
 * resource mid-run removes what the run made.
 *
 * Credentials come per resource from `openstack.credentialsSecretRef` (clouds.yaml key names
 * or OS_* variables); the Cinder volume is found through the Cinder CSI volume handle of the
 * claim's persistent volume (`autoDiscover`), else the claim's annotation names it.
 */
@Injectable()
export class VolumeSnapshotBackupReconciler implements Reconciler<VolumeSnapshotBackup> {
  readonly kind = VolumeSnapshotBackupKind;
  readonly owns = [CoreKinds.Job, CoreKinds.PersistentVolumeClaim];
  readonly ownsSelector = SNAPSHOT_BACKUP_LABEL;
  readonly finalizer = SNAPSHOT_CLEANUP_FINALIZER;

  constructor(
    private readonly cinders: CinderClients,
    private readonly webhooks: SnapshotBackupWebhooks,
    private readonly events: RunEvents,
    private readonly metrics: SnapshotBackupMetrics,
  ) {}

  async reconcile(
    backup: VolumeSnapshotBackup,
    context: ReconcileContext,
  ): Promise<ReconcileResult | void> {
    const run = await this.currentRun(backup, context);
    if (!run) return;
    try {
      for (let steps = 0; steps < MAX_STEPS_PER_PASS; steps++) {
        const step = await phaseStep(run);
        if ('done' in step) {
          this.metrics.record(run.namespace, run.name, run.status);
          return step.done;
        }
      }
      return { requeueAfterMs: 0 };
    } catch (error) {
      if (!(error instanceof CredentialsUnavailable || error instanceof OpenStackAuthRefused)) {
        throw error;
      }
      // Nothing to do until the Secret (or the cloud's view of it) changes; the run's
      // timeouts still count, so a run that waits too long fails when it can go on.
      await run.save(
        withCondition(
          { ...run.status, message: error.message },
          {
            type: SnapshotConditions.credentialsReady,
            status: 'False',
            reason: error.name,
            message: error.message,
          },
          context.clock.now(),
        ),
      );
      return { requeueAfterMs: WAITING_POLL_MS };
    }
  }

  async finalize(backup: VolumeSnapshotBackup, context: ReconcileContext): Promise<void> {
    const run = this.runOf(backup, context);
    this.metrics.forget(run.namespace, run.name);
    const phase = backup.status?.phase;
    if (phase && TERMINAL_PHASES.includes(phase)) return;
    try {
      const succeeded = conditionOf(run.status, SnapshotConditions.succeeded)?.status === 'True';
      const waiting = await removeRunObjects(run, succeeded);
      // Thrown so the runtime tries again (with backoff) and the deletion waits for Cinder.
      if (waiting) throw new Error(`VolumeSnapshotBackup ${run.namespace}/${run.name}: ${waiting}`);
    } catch (error) {
      if (!(error instanceof CredentialsUnavailable || error instanceof OpenStackAuthRefused)) {
        throw error;
      }
      // Without credentials nothing in Cinder can be reached: holding the deletion changes nothing.
      context.logger.warn?.(
        `VolumeSnapshotBackup ${run.namespace}/${run.name}: Cinder objects left in place: ${error.message}`,
        'VolumeSnapshotBackupReconciler',
      );
    }
  }

  /**
   * The run as the API server has it while it is under way: the cached copy may predate this
   * operator's last write, and a step taken from an older phase would repeat work. Ended runs
   * are taken from the cache (nothing is decided from them but pending deliveries).
   */
  private async currentRun(
    backup: VolumeSnapshotBackup,
    context: ReconcileContext,
  ): Promise<RunState | undefined> {
    const phase = backup.status?.phase;
    if (phase && TERMINAL_PHASES.includes(phase)) return this.runOf(backup, context);
    const fresh = await context.client.get<VolumeSnapshotBackup>(
      VolumeSnapshotBackupKind,
      backup.metadata.namespace,
      backup.metadata.name ?? '',
    );
    return fresh ? this.runOf(fresh, context) : undefined;
  }

  private runOf(backup: VolumeSnapshotBackup, context: ReconcileContext): RunState {
    return new RunState(backup, {
      context,
      cinders: this.cinders,
      webhooks: this.webhooks,
      events: this.events,
    });
  }
}

function phaseStep(run: RunState): Promise<Step> {
  switch (run.status.phase) {
    case undefined:
    case 'Pending':
      return pending(run);
    case 'CreatingSnapshot':
      return creatingSnapshot(run);
    case 'CreatingVolume':
      return creatingVolume(run);
    case 'Backup':
      return backingUp(run);
    case 'Cleanup':
      return cleaningUp(run);
    default:
      return finished(run);
  }
}
