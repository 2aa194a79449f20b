import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectEventually } from '@platform/testing';
import { deliveryId, LAST_NOTIFIED_JOB_ANNOTATION } from '@platform/backups';
import { KubeClient } from '@platform/kube';
import type { FakeKubeApiServer } from '@platform/testing';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import {
  type BackupOperator,
  createSigningSecret,
  finishCronJobRun,
  OPERATOR_CLOCK_START,
  RESYNC_PERIOD_SECONDS,
  resticSummaryLine,
  RUN,
  SIGNING_SECRET,
  startBackupApiServer,
  startBackupOperator,
  startCronJobRun,
  volumeBackupHelpers,
} from './support.js';

const FAILURE_LOG = [
  'repository 4f0c2a9e opened (version 2, compression level auto)',
  'Fatal: unable to open config file: Stat: The specified key does not exist.',
  'Is there a repository at the following location?',
].join('\n');

describe('VolumeBackup operator: backup runs, webhooks and metrics', () => {
  let server: FakeKubeApiServer;
  let operator: BackupOperator;
  let api: KubeClient;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    server = await startBackupApiServer();
    api = KubeClient.fromKubeConfig(server.kubeConfig());
    receiver = await WebhookReceiver.start();
    // Anything not signed with the Secret's key is answered 401 and fails the test's waits.
    receiver.secrets = [SIGNING_SECRET];
    operator = await startBackupOperator(server);
  });

  afterAll(async () => {
    await operator?.close();
    await receiver?.close();
    await server?.stop();
  });

  const { create, backupOf, reconciled } = volumeBackupHelpers(() => ({
    server,
    api,
  }));
  const webhooksReady = {
    type: 'WebhooksReady',
    status: 'True',
    reason: 'Signing',
    message: 'Deliveries are signed with key "secret" of Secret backup-hooks',
    lastTransitionTime: OPERATOR_CLOCK_START,
  };
  const CLOCK_START_MS = new Date(OPERATOR_CLOCK_START).toISOString();

  it('moves to Running, then Succeeded with the snapshot, and posts the success webhook once', async () => {
    await createSigningSecret(api, 'vb-success');
    const created = await create('vb-success', 'app', {
      webhooks: {
        success: receiver.url('/hooks/success'),
        failure: receiver.url('/hooks/failure'),
        secretRef: { name: 'backup-hooks' },
      },
    });
    await reconciled('vb-success', 'app');
    const run = { job: 'app-backup-28579860', startTime: RUN.started };

    startCronJobRun(server, 'vb-success', 'app-backup', run);
    await expectEventually(() =>
      expect(backupOf('vb-success', 'app')!.status).toMatchObject({
        phase: 'Running',
        message: 'Backup job app-backup-28579860 is running',
      }),
    );

    finishCronJobRun(server, 'vb-success', run, {
      succeeded: true,
      completionTime: RUN.completed,
      terminationMessage: resticSummaryLine(RUN.snapshot, RUN.processedBytes),
    });
    const message = `Backup job app-backup-28579860 created snapshot ${RUN.snapshot} (1.5Gi)`;
    await expectEventually(() =>
      expect(backupOf('vb-success', 'app')!.status).toEqual({
        observedGeneration: 1,
        phase: 'Succeeded',
        lastBackup: RUN.completed,
        lastSnapshot: RUN.snapshot,
        volumeSize: '1.5Gi',
        message,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Scheduled',
            message: 'The backup CronJobs are in place',
            lastTransitionTime: OPERATOR_CLOCK_START,
          },
          {
            type: 'BackupSucceeded',
            status: 'True',
            reason: 'SnapshotCreated',
            message,
            lastTransitionTime: OPERATOR_CLOCK_START,
          },
          webhooksReady,
        ],
        webhookDeliveries: [
          {
            id: deliveryId(created.metadata.uid!, run.job, 'backup.succeeded'),
            event: 'backup.succeeded',
            url: receiver.url('/hooks/success'),
            job: run.job,
            state: 'Delivered',
            attempts: 1,
            createdAt: CLOCK_START_MS,
            lastAttemptTime: CLOCK_START_MS,
            lastOutcome: 'delivered: HTTP 200',
          },
        ],
      }),
    );

    const delivered = await receiver.received.waitFor((r) => r.json.job === run.job);
    expect(delivered.path).toBe('/hooks/success');
    expect(delivered.headers['content-type']).toBe('application/json');
    expect(delivered.headers['webhook-id']).toBe(
      deliveryId(created.metadata.uid!, run.job, 'backup.succeeded'),
    );
    expect(delivered.verifiedBy).toEqual([SIGNING_SECRET]);
    expect(delivered.json).toEqual({
      event: 'backup.succeeded',
      volumeBackup: { namespace: 'vb-success', name: 'app', uid: created.metadata.uid },
      job: 'app-backup-28579860',
      snapshotId: RUN.snapshot,
      volumeSize: '1.5Gi',
      startTime: RUN.started,
      completionTime: RUN.completed,
      message,
      check: null,
      restoreTest: null,
    });
    expect(backupOf('vb-success', 'app')!.metadata.annotations).toEqual({
      [LAST_NOTIFIED_JOB_ANNOTATION]: 'app-backup-28579860',
    });

    // A resync, and a restarted operator, neither write nor report anything twice.
    await operator.settled();
    const writes = server.mutations();
    await operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    await operator.close();
    operator = await startBackupOperator(server);
    await operator.settled();
    expect(receiver.received.items.filter((r) => r.json.job === run.job)).toHaveLength(1);
    expect(server.mutations()).toBe(writes);
  });

  it("moves to Failed with restic's error and posts the failure webhook", async () => {
    await createSigningSecret(api, 'vb-failure');
    const created = await create('vb-failure', 'app', {
      webhooks: {
        success: receiver.url('/hooks/success'),
        failure: receiver.url('/hooks/failure'),
        secretRef: { name: 'backup-hooks' },
      },
    });
    await reconciled('vb-failure', 'app');
    const run = { job: 'app-backup-28579861', startTime: RUN.started };
    startCronJobRun(server, 'vb-failure', 'app-backup', run);
    finishCronJobRun(server, 'vb-failure', run, {
      succeeded: false,
      completionTime: RUN.completed,
      terminationMessage: FAILURE_LOG,
    });
    const message =
      'Backup job app-backup-28579861 failed: Fatal: unable to open config file: Stat: The specified key does not exist.';
    await expectEventually(() =>
      expect(backupOf('vb-failure', 'app')!.status).toEqual({
        observedGeneration: 1,
        phase: 'Failed',
        message,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Scheduled',
            message: 'The backup CronJobs are in place',
            lastTransitionTime: OPERATOR_CLOCK_START,
          },
          {
            type: 'BackupSucceeded',
            status: 'False',
            reason: 'BackupFailed',
            message,
            lastTransitionTime: OPERATOR_CLOCK_START,
          },
          webhooksReady,
        ],
        webhookDeliveries: [
          expect.objectContaining({ event: 'backup.failed', state: 'Delivered', attempts: 1 }),
        ],
      }),
    );
    const delivered = await receiver.received.waitFor((r) => r.json.job === run.job);
    expect(delivered.path).toBe('/hooks/failure');
    expect(delivered.json).toEqual({
      event: 'backup.failed',
      volumeBackup: { namespace: 'vb-failure', name: 'app', uid: created.metadata.uid },
      job: 'app-backup-28579861',
      snapshotId: null,
      volumeSize: null,
      startTime: RUN.started,
      completionTime: RUN.completed,
      message,
      check: null,
      restoreTest: null,
    });
  });

  it('retries the webhook with backoff under one webhook-id while the receiver answers 500', async () => {
    await createSigningSecret(api, 'vb-retry');
    const created = await create('vb-retry', 'app', {
      webhooks: { success: receiver.url('/hooks/retry'), secretRef: { name: 'backup-hooks' } },
    });
    await reconciled('vb-retry', 'app');
    receiver.answer(500, 500);
    const run = { job: 'app-backup-28579862', startTime: RUN.started };
    const id = deliveryId(created.metadata.uid!, run.job, 'backup.succeeded');
    startCronJobRun(server, 'vb-retry', 'app-backup', run);
    finishCronJobRun(server, 'vb-retry', run, {
      succeeded: true,
      completionTime: RUN.completed,
      terminationMessage: resticSummaryLine(RUN.snapshot, 2048),
    });
    const deliveryOf = () => backupOf('vb-retry', 'app')!.status?.webhookDeliveries?.[0];
    await expectEventually(() =>
      expect(deliveryOf()).toMatchObject({
        id,
        state: 'Pending',
        attempts: 1,
        lastOutcome: 'receiver answered 500',
        nextAttemptTime: new Date(Date.parse(OPERATOR_CLOCK_START) + 50).toISOString(),
      }),
    );
    // Retries wait for the operator's clock: nothing more happens until it moves.
    await operator.settled();
    expect(receiver.byId(id)).toHaveLength(1);
    await operator.advance({ ms: 50 });
    await expectEventually(() => expect(deliveryOf()).toMatchObject({ attempts: 2 }));
    await operator.advance({ ms: 100 });
    await expectEventually(() =>
      expect(deliveryOf()).toMatchObject({
        state: 'Delivered',
        attempts: 3,
        lastOutcome: 'delivered: HTTP 200',
      }),
    );
    const attempts = receiver.byId(id);
    expect(attempts.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
    expect(attempts.every((r) => r.verifiedBy.length === 1)).toBe(true);
    expect(deliveryOf()!.payload).toBeUndefined();
    expect(backupOf('vb-retry', 'app')!.status).toMatchObject({
      phase: 'Succeeded',
      volumeSize: '2Ki',
    });
    expect(await operator.metrics()).toContain(
      'volume_backup_webhook_attempts_total{namespace="vb-retry",name="app",outcome="retrying"} 2',
    );
  });

  it('exports the time of the last success per VolumeBackup', async () => {
    await expectEventually(async () =>
      expect(await operator.metrics()).toContain(
        `volume_backup_last_success_timestamp_seconds{namespace="vb-success",name="app"} ${Date.parse(RUN.completed) / 1000}`,
      ),
    );
  });
});
