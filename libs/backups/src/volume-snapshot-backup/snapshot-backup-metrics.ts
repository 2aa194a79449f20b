import { Injectable } from '@nestjs/common';
import { MetricsService } from '@platform/core';
import type { Gauge } from 'prom-client';
import type { VolumeSnapshotBackupStatus } from '../api/types.js';

type Labels = 'namespace' | 'name';

/**
 * Per VolumeSnapshotBackup whose run ended: whether it succeeded and when it ended. Gauges
 * follow status, so a restarted operator exports the same values at its first pass.
 */
@Injectable()
export class SnapshotBackupMetrics {
  private readonly succeeded: Gauge<Labels>;
  private readonly completion: Gauge<Labels>;

  constructor(metrics: MetricsService) {
    const labels = ['namespace', 'name'] as const;
    this.succeeded = metrics.gauge(
      'volume_snapshot_backup_succeeded',
      'Whether the run of a VolumeSnapshotBackup succeeded (1) or failed (0), once it ended',
      labels,
    );
    this.completion = metrics.gauge(
      'volume_snapshot_backup_completion_timestamp_seconds',
      'When the run of a VolumeSnapshotBackup ended (Unix seconds)',
      labels,
    );
  }

  record(namespace: string, name: string, status: VolumeSnapshotBackupStatus | undefined): void {
    const ended = status?.lastBackup;
    const ms = ended?.timestamp ? Date.parse(ended.timestamp) : NaN;
    if (!ended || Number.isNaN(ms)) return;
    this.succeeded.set({ namespace, name }, ended.status === 'Succeeded' ? 1 : 0);
    this.completion.set({ namespace, name }, ms / 1000);
  }

  forget(namespace: string, name: string): void {
    this.succeeded.remove({ namespace, name });
    this.completion.remove({ namespace, name });
  }
}
