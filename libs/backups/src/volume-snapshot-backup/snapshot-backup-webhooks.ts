import { Injectable } from '@nestjs/common';
import { type ReconcileContext, setCondition } from '@platform/kube';
import type { VolumeSnapshotBackup, VolumeSnapshotBackupStatus } from '../api/types.js';
import { BackupWebhookNotifier, readWebhookSecret } from '../volume-backup/backup-webhooks.js';
import {
  deliveryId,
  isDue,
  nextAttemptInMs,
  pruneDeliveries,
  queueDelivery,
  recordAttempt,
} from '../volume-backup/webhook-deliveries.js';
import { HELD_RETRY_MS } from '../volume-backup/backup-reporting.js';
import type { DefaultedSnapshotBackupSpec } from './snapshot-backup-spec.js';

/** What the success and failure webhooks receive when a VolumeSnapshotBackup's run ends. */
export interface SnapshotBackupWebhookPayload {
  event: 'backup.succeeded' | 'backup.failed';
  volumeSnapshotBackup: { namespace: string; name: string; uid: string };
  /** The backup Job, or the resource's name when the run failed before it. */
  job: string;
  /** restic's snapshot id (success only). */
  snapshotId: string | null;
  /** The Cinder snapshot the backup was read from. */
  cinderSnapshotId: string | null;
  volumeSize: string | null;
  startTime: string | null;
  completionTime: string | null;
  message: string;
}

/**
 * The run's outcome to the webhooks of `spec.webhooks`, signed and retried as VolumeBackup's:
 * queued in status before anything is sent (its id derives from the resource and the event, so
 * queueing again after a restart is the same delivery), attempted from status.
 */
@Injectable()
export class SnapshotBackupWebhooks {
  constructor(private readonly notifier: BackupWebhookNotifier) {}

  /** The status with the run's delivery queued (when a URL for its outcome is set). */
  queue(
    status: VolumeSnapshotBackupStatus,
    spec: DefaultedSnapshotBackupSpec,
    payload: SnapshotBackupWebhookPayload,
    now: Date,
  ): VolumeSnapshotBackupStatus {
    const url =
      payload.event === 'backup.succeeded' ? spec.webhooks?.success : spec.webhooks?.failure;
    if (!url) return status;
    const deliveries = queueDelivery(
      status.webhookDeliveries ?? [],
      {
        id: deliveryId(payload.volumeSnapshotBackup.uid, payload.job, payload.event),
        event: payload.event,
        url,
        job: payload.job,
        payload: JSON.stringify(payload),
      },
      now,
    );
    return { ...status, webhookDeliveries: pruneDeliveries(deliveries) };
  }

  /**
   * Attempts the due deliveries and answers the status with the attempts recorded, the
   * WebhooksReady condition, and when to look again. Without a readable key nothing is sent.
   */
  async sendDue(
    context: ReconcileContext,
    backup: VolumeSnapshotBackup,
    spec: DefaultedSnapshotBackupSpec,
    status: VolumeSnapshotBackupStatus,
  ): Promise<{ status: VolumeSnapshotBackupStatus; requeueAfterMs?: number }> {
    const deliveries = status.webhookDeliveries ?? [];
    if (!deliveries.some((d) => d.state === 'Pending')) return { status };
    const now = context.clock.now();
    const namespace = backup.metadata.namespace ?? '';
    const signing = await readWebhookSecret(context.client, namespace, spec.webhooks?.secretRef);
    if (!('secret' in signing)) {
      const conditions = setCondition(
        status.conditions,
        { type: 'WebhooksReady', status: 'False', ...signing },
        now,
      );
      return { status: { ...status, conditions }, requeueAfterMs: HELD_RETRY_MS };
    }
    const conditions = setCondition(
      status.conditions,
      {
        type: 'WebhooksReady',
        status: 'True',
        reason: 'Signing',
        message: 'Deliveries are signed',
      },
      now,
    );
    const sent = await Promise.all(
      deliveries.map(async (delivery) => {
        if (!isDue(delivery, now)) return delivery;
        const result = await this.notifier.attempt(delivery, signing.secret);
        return recordAttempt(delivery, result, context.clock.now(), this.notifier.policy);
      }),
    );
    return {
      status: { ...status, conditions, webhookDeliveries: pruneDeliveries(sent) },
      requeueAfterMs: nextAttemptInMs(sent, context.clock.now()),
    };
  }
}
