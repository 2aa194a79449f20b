import { Injectable } from '@nestjs/common';
import { MetricsService } from '@platform/core';
import type { Counter, Gauge } from 'prom-client';
import type { VerificationStatus, VolumeBackupStatus } from '../api/types.js';

const LAST_SUCCESS = 'volume_backup_last_success_timestamp_seconds';

type Labels = 'namespace' | 'name';

/**
 * Per VolumeBackup: when its last backup succeeded, so stale backups can be alerted on; the
 * outcome, time and file counts of its newest check and restore test; and its webhook attempts.
 */
@Injectable()
export class VolumeBackupMetrics {
  private readonly lastSuccess: Gauge<Labels>;
  private readonly verificationPassed: Gauge<Labels | 'type'>;
  private readonly verificationLastRun: Gauge<Labels | 'type'>;
  private readonly filesVerified: Gauge<Labels>;
  private readonly webhookAttempts: Counter<Labels | 'outcome'>;

  constructor(metrics: MetricsService) {
    const labels = ['namespace', 'name'] as const;
    this.lastSuccess = metrics.gauge(
      LAST_SUCCESS,
      'Completion time of the last successful backup of a VolumeBackup (Unix seconds)',
      labels,
    );
    this.verificationPassed = metrics.gauge(
      'volume_backup_verification_passed',
      'Whether the newest check or restore test of a VolumeBackup passed (1) or failed (0)',
      [...labels, 'type'] as const,
    );
    this.verificationLastRun = metrics.gauge(
      'volume_backup_verification_last_run_timestamp_seconds',
      'Completion time of the newest check or restore test of a VolumeBackup (Unix seconds)',
      [...labels, 'type'] as const,
    );
    this.filesVerified = metrics.gauge(
      'volume_backup_restore_test_files_verified',
      'Files the newest restore test of a VolumeBackup restored and found identical to the source',
      labels,
    );
    this.webhookAttempts = metrics.counter(
      'volume_backup_webhook_attempts_total',
      'Webhook delivery attempts of a VolumeBackup by what came of them (delivered, retrying, failed)',
      [...labels, 'outcome'] as const,
    );
  }

  recordLastSuccess(namespace: string, name: string, lastBackup: string | undefined): void {
    const ms = lastBackup ? Date.parse(lastBackup) : NaN;
    if (Number.isNaN(ms)) return;
    this.lastSuccess.set({ namespace, name }, ms / 1000);
  }

  /** Gauges follow status, so a restarted operator exports the same values at once. */
  recordResults(namespace: string, name: string, status: VolumeBackupStatus | undefined): void {
    this.recordLastSuccess(namespace, name, status?.lastBackup);
    this.recordVerification(namespace, name, 'check', status?.check);
    this.recordVerification(namespace, name, 'restore-test', status?.restoreTest);
    if (status?.restoreTest?.filesVerified !== undefined) {
      this.filesVerified.set({ namespace, name }, status.restoreTest.filesVerified);
    }
  }

  recordWebhookAttempt(namespace: string, name: string, outcome: string): void {
    this.webhookAttempts.inc({ namespace, name, outcome });
  }

  forget(namespace: string, name: string): void {
    this.lastSuccess.remove({ namespace, name });
    this.filesVerified.remove({ namespace, name });
    for (const type of ['check', 'restore-test']) {
      this.verificationPassed.remove({ namespace, name, type });
      this.verificationLastRun.remove({ namespace, name, type });
    }
    for (const outcome of ['delivered', 'retrying', 'failed']) {
      this.webhookAttempts.remove({ namespace, name, outcome });
    }
  }

  private recordVerification(
    namespace: string,
    name: string,
    type: string,
    result: VerificationStatus | undefined,
  ): void {
    if (!result) return;
    this.verificationPassed.set({ namespace, name, type }, result.result === 'Passed' ? 1 : 0);
    const ms = Date.parse(result.lastRun);
    if (!Number.isNaN(ms)) this.verificationLastRun.set({ namespace, name, type }, ms / 1000);
  }
}
