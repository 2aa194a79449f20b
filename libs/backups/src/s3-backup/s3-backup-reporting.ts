import { Injectable } from '@nestjs/common';
import type { ReconcileContext } from '@platform/kube';
import type { DefaultedS3BackupSpec } from '../api/s3-backup-defaults.js';
import { S3BackupKind } from '../api/kinds.js';
import type { S3Backup, S3BackupStatus } from '../api/types.js';
import type { RunEvent } from '../volume-backup/backup-events.js';
import { BackupReporting } from '../volume-backup/backup-reporting.js';
import type { BackupRun, BackupRuns } from '../volume-backup/backup-runs.js';
import { describeFailure, describeSuccess } from '../volume-backup/backup-status.js';
import type { RunOutcomes } from '../volume-backup/run-outcomes.js';
import { deliveryId, pruneDeliveries, queueDelivery } from '../volume-backup/webhook-deliveries.js';
import { S3BackupMetrics } from './s3-backup-metrics.js';
import { objectCount } from './s3-backup-status.js';

/**
 * What the success and failure webhooks of an S3Backup receive: one POST per finished backup
 * Job, with the bucket and what the snapshot holds.
 */
export interface S3BackupWebhookPayload {
  event: 'backup.succeeded' | 'backup.failed';
  s3Backup: { namespace: string; name: string; uid: string };
  bucket: string;
  prefix: string | null;
  job: string;
  snapshotId: string | null;
  size: string | null;
  objectCount: number | null;
  bytes: number | null;
  startTime: string | null;
  completionTime: string | null;
  message: string;
}

export interface S3ReportInputs {
  context: ReconcileContext;
  backup: S3Backup;
  spec: DefaultedS3BackupSpec;
  runs: BackupRuns;
  /** Finished runs not reported yet, oldest first. */
  unreported: BackupRun[];
  outcomes: RunOutcomes;
  /** The status built from the runs; the deliveries are added. */
  status: S3BackupStatus;
}

/**
 * Events, metrics and signed webhooks of an S3Backup's runs, through VolumeBackup's machinery:
 * the same events, the same durable deliveries in status, the same signing and retries.
 */
@Injectable()
export class S3BackupReporting {
  constructor(
    private readonly reporting: BackupReporting,
    private readonly metrics: S3BackupMetrics,
  ) {}

  /** The full status to record before anything is sent, and the events it calls for. */
  async collect(inputs: S3ReportInputs): Promise<{ status: S3BackupStatus; events: RunEvent[] }> {
    const { backup, spec, context } = inputs;
    const now = context.clock.now();
    const events: RunEvent[] = [];
    const event = (job: string, reason: string, message: string, warning = false) =>
      events.push({ object: backup, job, reason, message, warning });
    const active = inputs.runs.active;
    if (active) event(active.job, 'BackupStarted', `Backup job ${active.job} started`);

    const subject = {
      namespace: backup.metadata.namespace ?? '',
      name: backup.metadata.name ?? '',
      uid: backup.metadata.uid ?? '',
    };
    let deliveries = await this.reporting.currentDeliveries(
      context,
      S3BackupKind,
      backup,
      inputs.unreported.length > 0,
    );
    for (const run of inputs.unreported) {
      const succeeded = run.phase === 'Succeeded';
      const summary = succeeded ? await inputs.outcomes.summary(run) : undefined;
      const message = succeeded
        ? describeSuccess(run, summary ?? {})
        : describeFailure(run, await inputs.outcomes.failureDetail(run));
      event(run.job, succeeded ? 'BackupSucceeded' : 'BackupFailed', message, !succeeded);
      const url = succeeded ? spec.webhooks?.success : spec.webhooks?.failure;
      if (!url) continue;
      const payload: S3BackupWebhookPayload = {
        event: succeeded ? 'backup.succeeded' : 'backup.failed',
        s3Backup: subject,
        bucket: spec.source.bucket,
        prefix: spec.source.prefix ?? null,
        job: run.job,
        snapshotId: summary?.snapshotId ?? null,
        size: summary?.volumeSize ?? null,
        objectCount: summary ? objectCount(summary) : null,
        bytes: summary?.totalBytesProcessed ?? null,
        startTime: run.startTime ?? null,
        completionTime: run.completionTime ?? null,
        message,
      };
      deliveries = queueDelivery(
        deliveries,
        {
          id: deliveryId(subject.uid, run.job, payload.event),
          event: payload.event,
          url,
          job: run.job,
          payload: JSON.stringify(payload),
        },
        now,
      );
    }
    const status = { ...inputs.status };
    if (deliveries.length > 0) status.webhookDeliveries = pruneDeliveries(deliveries);
    return { status, events };
  }

  emit(context: ReconcileContext, events: RunEvent[]): Promise<void> {
    return this.reporting.emit(context, events);
  }

  /** Attempts the due deliveries; see BackupReporting.sendDue. */
  sendDue(
    context: ReconcileContext,
    backup: S3Backup,
    spec: DefaultedS3BackupSpec,
    status: S3BackupStatus,
  ): Promise<{ status: S3BackupStatus; requeueAfterMs?: number }> {
    return this.reporting.sendDue(context, backup, spec, status, this.metrics);
  }
}
