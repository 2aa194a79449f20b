import { Injectable } from '@nestjs/common';
import { MetricsService } from '@platform/core';
import type { Gauge } from 'prom-client';

const LAST_SUCCESS = 'volume_backup_last_success_timestamp_seconds';

/** Per VolumeBackup, when its last backup succeeded, so stale backups can be alerted on. */
@Injectable()
export class VolumeBackupMetrics {
  private readonly lastSuccess: Gauge<'namespace' | 'name'>;

  constructor(metrics: MetricsService) {
    this.lastSuccess = metrics.gauge(
      LAST_SUCCESS,
      'Completion time of the last successful backup of a VolumeBackup (Unix seconds)',
      ['namespace', 'name'] as const,
    );
  }

  recordLastSuccess(namespace: string, name: string, lastBackup: string | undefined): void {
    const ms = lastBackup ? Date.parse(lastBackup) : NaN;
    if (Number.isNaN(ms)) return;
    this.lastSuccess.set({ namespace, name }, ms / 1000);
  }

  forget(namespace: string, name: string): void {
    this.lastSuccess.remove({ namespace, name });
  }
}
