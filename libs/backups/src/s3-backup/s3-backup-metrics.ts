import { Injectable } from '@nestjs/common';
import { MetricsService } from '@platform/core';
import type { Counter, Gauge } from 'prom-client';
import type { S3BackupStatus } from '../api/types.js';
import type { WebhookAttemptRecorder } from '../volume-backup/backup-reporting.js';

type Labels = 'namespace' | 'name';

/**
 * Per S3Backup: when its last backup succeeded (to alert on stale backups), how many objects
 * and bytes that backup held, and its webhook attempts.
 */
@Injectable()
export class S3BackupMetrics implements WebhookAttemptRecorder {
  private readonly lastSuccess: Gauge<Labels>;
  private readonly objects: Gauge<Labels>;
  private readonly bytes: Gauge<Labels>;
  private readonly webhookAttempts: Counter<Labels | 'outcome'>;

  constructor(metrics: MetricsService) {
    const labels = ['namespace', 'name'] as const;
    this.lastSuccess = metrics.gauge(
      's3_backup_last_success_timestamp_seconds',
      'Completion time of the last successful backup of an S3Backup (Unix seconds)',
      labels,
    );
    this.objects = metrics.gauge(
      's3_backup_objects',
      'Objects in the last successful backup of an S3Backup',
      labels,
    );
    this.bytes = metrics.gauge(
      's3_backup_bytes',
      'Bytes in the last successful backup of an S3Backup',
      labels,
    );
    this.webhookAttempts = metrics.counter(
      's3_backup_webhook_attempts_total',
      'Webhook delivery attempts of an S3Backup by what came of them (delivered, retrying, failed)',
      [...labels, 'outcome'] as const,
    );
  }

  /** Gauges follow status, so a restarted operator exports the same values at once. */
  recordResults(namespace: string, name: string, status: S3BackupStatus | undefined): void {
    const ms = status?.lastBackup ? Date.parse(status.lastBackup) : NaN;
    if (!Number.isNaN(ms)) this.lastSuccess.set({ namespace, name }, ms / 1000);
    if (status?.objectCount !== undefined)
      this.objects.set({ namespace, name }, status.objectCount);
    if (status?.bytes !== undefined) this.bytes.set({ namespace, name }, status.bytes);
  }

  recordWebhookAttempt(namespace: string, name: string, outcome: string): void {
    this.webhookAttempts.inc({ namespace, name, outcome });
  }

  forget(namespace: string, name: string): void {
    for (const gauge of [this.lastSuccess, this.objects, this.bytes]) {
      gauge.remove({ namespace, name });
    }
    for (const outcome of ['delivered', 'retrying', 'failed']) {
      this.webhookAttempts.remove({ namespace, name, outcome });
    }
  }
}
