import { Injectable } from '@nestjs/common';
import {
  type Condition,
  type KindRef,
  type KubeObject,
  type ReconcileContext,
  setCondition,
} from '@platform/kube';
import type { DefaultedVolumeBackupSpec } from '../api/defaults.js';
import { VolumeBackupKind } from '../api/kinds.js';
import type {
  VolumeBackup,
  VolumeBackupStatus,
  WebhookDeliveryStatus,
  WebhookSpec,
} from '../api/types.js';
import { RunEvents, type RunEvent } from './backup-events.js';
import { VolumeBackupMetrics } from './backup-metrics.js';
import type { BackupRun, BackupRuns, JobObject } from './backup-runs.js';
import { describeFailure, describeSuccess } from './backup-status.js';
import {
  backupWebhookPayload,
  type BackupWebhookEvent,
  BackupWebhookNotifier,
  readWebhookSecret,
  type Verifications,
} from './backup-webhooks.js';
import type { RunOutcomes } from './run-outcomes.js';
import {
  runsOfType,
  verificationCondition,
  verificationResult,
  type VerificationType,
} from './verification-runs.js';
import {
  deliveryId,
  isDue,
  nextAttemptInMs,
  pruneDeliveries,
  queueDelivery,
  recordAttempt,
} from './webhook-deliveries.js';

/** While the signing key cannot be read, held deliveries are looked at again this often. */
export const HELD_RETRY_MS = 60_000;

/** The status fields of a backup resource (of any kind) that its webhook deliveries use. */
export interface DeliveringStatus {
  conditions?: Condition[];
  webhookDeliveries?: WebhookDeliveryStatus[];
}

/** Where the outcome of each webhook attempt is counted. */
export interface WebhookAttemptRecorder {
  recordWebhookAttempt(namespace: string, name: string, outcome: string): void;
}

export interface ReportInputs {
  context: ReconcileContext;
  backup: VolumeBackup;
  spec: DefaultedVolumeBackupSpec;
  /** Every Job of the backup (backup, check and restore test), wherever they run. */
  jobs: JobObject[];
  backupRuns: BackupRuns;
  /** Finished backup runs not reported yet, oldest first. */
  unreported: BackupRun[];
  outcomes: RunOutcomes;
  /** The status built from the backup runs; check, restore test and deliveries are added. */
  status: VolumeBackupStatus;
  /** The target cluster's client: where the check and restore-test pods are. */
  jobsClient: ReconcileContext['client'];
}

/**
 * What users see of a VolumeBackup's runs beyond the backup phase: check and restore-test
 * results in status and conditions, Kubernetes Events, metrics, and the webhook deliveries,
 * which live in status so that retries outlast the process.
 */
@Injectable()
export class BackupReporting {
  constructor(
    private readonly notifier: BackupWebhookNotifier,
    private readonly events: RunEvents,
    private readonly metrics: VolumeBackupMetrics,
  ) {}

  /** The full status to record before anything is sent, and the events it calls for. */
  async collect(inputs: ReportInputs): Promise<{ status: VolumeBackupStatus; events: RunEvent[] }> {
    const { backup, spec, context } = inputs;
    const previous = backup.status;
    const now = context.clock.now();
    const namespace = backup.metadata.namespace ?? '';
    const status: VolumeBackupStatus = { ...inputs.status };
    const events: RunEvent[] = [];
    const event = (job: string, reason: string, message: string, warning = false) =>
      events.push({ object: backup, job, reason, message, warning });

    const verifications: Verifications = {};
    const failedVerifications: Array<[VerificationType, BackupWebhookEvent]> = [];
    for (const type of ['check', 'restore-test'] as const) {
      const field = type === 'check' ? 'check' : 'restoreTest';
      const name = type === 'check' ? 'Check' : 'RestoreTest';
      const runs = runsOfType(inputs.jobs, type);
      const label = type === 'check' ? 'Check' : 'Restore test';
      if (runs.active) {
        event(runs.active.job, `${name}Started`, `${label} job ${runs.active.job} started`);
      }
      const found = await verificationResult(
        type,
        runs,
        previous?.[field],
        inputs.jobsClient,
        namespace,
      );
      if (!found.result) continue;
      verifications[field] = found.result;
      status[field] = found.result;
      status.conditions = setCondition(
        status.conditions,
        verificationCondition(type, found.result),
        now,
      );
      if (found.fresh) {
        const failed = found.result.result === 'Failed';
        event(
          found.result.job,
          `${name}${failed ? 'Failed' : 'Passed'}`,
          found.result.message ?? '',
          failed,
        );
        if (failed) failedVerifications.push([type, `${field}.failed` as BackupWebhookEvent]);
      }
    }

    const active = inputs.backupRuns.active;
    if (active) event(active.job, 'BackupStarted', `Backup job ${active.job} started`);

    let deliveries = await this.currentDeliveries(
      context,
      VolumeBackupKind,
      backup,
      inputs.unreported.length > 0,
    );
    const subject = { namespace, name: backup.metadata.name ?? '', uid: backup.metadata.uid ?? '' };
    const queue = (url: string | undefined, job: string, payload: object & { event: string }) => {
      if (!url) return;
      deliveries = queueDelivery(
        deliveries,
        {
          id: deliveryId(subject.uid, job, payload.event),
          event: payload.event,
          url,
          job,
          payload: JSON.stringify(payload),
        },
        now,
      );
    };
    for (const run of inputs.unreported) {
      if (run.phase === 'Succeeded') {
        const summary = await inputs.outcomes.summary(run);
        const message = describeSuccess(run, summary ?? {});
        event(run.job, 'BackupSucceeded', message);
        const payload = backupWebhookPayload(
          subject,
          run,
          { snapshotId: summary?.snapshotId, volumeSize: summary?.volumeSize, message },
          verifications,
        );
        queue(spec.webhooks?.success, run.job, payload);
      } else if (run.phase === 'Failed') {
        const message = describeFailure(run, await inputs.outcomes.failureDetail(run));
        event(run.job, 'BackupFailed', message, true);
        const payload = backupWebhookPayload(subject, run, { message }, verifications);
        queue(spec.webhooks?.failure, run.job, payload);
      }
    }
    for (const [type, webhookEvent] of failedVerifications) {
      const result = verifications[type === 'check' ? 'check' : 'restoreTest']!;
      const run: BackupRun = {
        job: result.job,
        phase: 'Failed',
        createdAt: 0,
        completionTime: result.lastRun,
      };
      const payload = backupWebhookPayload(
        subject,
        run,
        { message: result.message ?? '' },
        verifications,
        webhookEvent,
      );
      queue(spec.webhooks?.failure, result.job, payload);
    }
    if (deliveries.length > 0) status.webhookDeliveries = pruneDeliveries(deliveries);
    return { status, events };
  }

  /**
   * The deliveries as the API server has them when any may be sent: the informer's copy can
   * predate this operator's last write (the attempt it recorded), and sending from it would
   * repeat that attempt.
   */
  async currentDeliveries(
    context: ReconcileContext,
    kind: KindRef,
    backup: KubeObject<unknown, DeliveringStatus>,
    queueing: boolean,
  ): Promise<WebhookDeliveryStatus[]> {
    const cached = backup.status?.webhookDeliveries ?? [];
    if (!queueing && !cached.some((d) => d.state === 'Pending')) return cached;
    const fresh = await context.client.get<KubeObject<unknown, DeliveringStatus>>(
      kind,
      backup.metadata.namespace,
      backup.metadata.name ?? '',
    );
    return fresh?.status?.webhookDeliveries ?? cached;
  }

  async emit(context: ReconcileContext, events: RunEvent[]): Promise<void> {
    for (const event of events) {
      try {
        await this.events.emit(context.client, event, context.clock.now());
      } catch (error) {
        context.logger.warn?.(
          `event ${event.reason} for ${event.object.metadata.namespace}/${event.object.metadata.name} not recorded: ${(error as Error).message}`,
          'BackupReporting',
        );
      }
    }
  }

  /**
   * Attempts the due deliveries (in parallel, each bounded by the policy's timeout) and
   * returns the status with the attempts recorded, the WebhooksReady condition, and when to
   * look again. Without a readable signing key nothing is sent.
   */
  async sendDue<S extends DeliveringStatus>(
    context: ReconcileContext,
    backup: KubeObject,
    spec: { webhooks?: WebhookSpec },
    status: S,
    attempts: WebhookAttemptRecorder = this.metrics,
  ): Promise<{ status: S; requeueAfterMs?: number }> {
    const namespace = backup.metadata.namespace ?? '';
    const name = backup.metadata.name ?? '';
    const deliveries = status.webhookDeliveries ?? [];
    const configured = Boolean(spec.webhooks?.success || spec.webhooks?.failure);
    if (!configured && !deliveries.some((d) => d.state === 'Pending')) return { status };
    const now = context.clock.now();
    const signing = await readWebhookSecret(context.client, namespace, spec.webhooks?.secretRef);
    if (!('secret' in signing)) {
      const conditions = setCondition(
        status.conditions,
        { type: 'WebhooksReady', status: 'False', ...signing },
        now,
      );
      const pending = nextAttemptInMs(deliveries, now) !== undefined;
      return {
        status: { ...status, conditions },
        requeueAfterMs: pending ? HELD_RETRY_MS : undefined,
      };
    }
    const ref = spec.webhooks!.secretRef;
    const conditions = setCondition(
      status.conditions,
      {
        type: 'WebhooksReady',
        status: 'True',
        reason: 'Signing',
        message: `Deliveries are signed with key "${ref.key || 'secret'}" of Secret ${ref.name}`,
      },
      now,
    );
    const sent = await Promise.all(
      deliveries.map(async (delivery) => {
        if (!isDue(delivery, now)) return delivery;
        const result = await this.notifier.attempt(delivery, signing.secret);
        const next = recordAttempt(delivery, result, context.clock.now(), this.notifier.policy);
        attempts.recordWebhookAttempt(
          namespace,
          name,
          next.state === 'Pending' ? 'retrying' : next.state.toLowerCase(),
        );
        if (next.state === 'Failed') {
          context.logger.error?.(
            `webhook ${delivery.event} of ${backup.kind} ${namespace}/${name} (${delivery.id}): ${next.lastOutcome}`,
            undefined,
            'BackupReporting',
          );
        }
        return next;
      }),
    );
    const webhookDeliveries = sent.length > 0 ? pruneDeliveries(sent) : undefined;
    return {
      status: { ...status, conditions, ...(webhookDeliveries ? { webhookDeliveries } : {}) },
      requeueAfterMs: nextAttemptInMs(sent, context.clock.now()),
    };
  }
}
