import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deliveryId, LAST_NOTIFIED_JOB_ANNOTATION } from '@platform/backups';
import { CoreKinds, KubeClient, type KubeObject } from '@platform/kube';
import { expectEventually, type FakeKubeApiServer } from '@platform/testing';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import { failSyncOfRun, s3BackupHelpers } from './s3-backup-support.js';
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
} from './support.js';

type EventObject = KubeObject & { reason: string; message: string; type: string };

const RCLONE_LOG = [
  '2024/05/03 03:00:01 NOTICE: Config file "/tmp/rclone.conf" not found - using defaults',
  '2024/05/03 03:00:02 ERROR : S3 bucket media: error reading source root directory: AccessDenied: Access Denied',
  '2024/05/03 03:00:02 Failed to sync: AccessDenied: Access Denied',
].join('\n');

describe('S3Backup operator: runs, webhooks, events and metrics', () => {
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

  const { create, backupOf, reconciled } = s3BackupHelpers(() => ({ server, api }));
  const webhooks = () => ({
    success: receiver.url('/hooks/s3-success'),
    failure: receiver.url('/hooks/s3-failure'),
    secretRef: { name: 'backup-hooks' },
  });
  const eventsIn = (namespace: string) =>
    server
      .list<EventObject>(CoreKinds.Event, namespace)
      .map((e) => ({ name: e.metadata.name, reason: e.reason, type: e.type, message: e.message }))
      .sort((a, b) => a.name!.localeCompare(b.name!));
  const readyCondition = {
    type: 'Ready',
    status: 'True',
    reason: 'Scheduled',
    message: 'The backup CronJobs are in place',
    lastTransitionTime: OPERATOR_CLOCK_START,
  };
  const webhooksReady = {
    type: 'WebhooksReady',
    status: 'True',
    reason: 'Signing',
    message: 'Deliveries are signed with key "secret" of Secret backup-hooks',
    lastTransitionTime: OPERATOR_CLOCK_START,
  };

  it('Running, then Succeeded with the snapshot, size, objects and bytes; one signed success webhook', async () => {
    await createSigningSecret(api, 's3-success');
    const created = await create('s3-success', 'media', {
      source: { bucket: 'media', endpoint: 'https://objects.example.test', prefix: 'uploads' },
      webhooks: webhooks(),
    });
    await reconciled('s3-success', 'media');
    const run = { job: 'media-backup-28579860', startTime: RUN.started };

    startCronJobRun(server, 's3-success', 'media-backup', run);
    await expectEventually(() =>
      expect(backupOf('s3-success', 'media')!.status).toMatchObject({
        phase: 'Running',
        message: 'Backup job media-backup-28579860 is running',
      }),
    );
    finishCronJobRun(server, 's3-success', run, {
      succeeded: true,
      completionTime: RUN.completed,
      terminationMessage: resticSummaryLine(RUN.snapshot, RUN.processedBytes),
    });
    const message = `Backup job media-backup-28579860 created snapshot ${RUN.snapshot} (1.5Gi)`;
    const id = deliveryId(created.metadata.uid!, run.job, 'backup.succeeded');
    await expectEventually(() =>
      expect(backupOf('s3-success', 'media')!.status).toEqual({
        observedGeneration: 1,
        phase: 'Succeeded',
        lastBackup: RUN.completed,
        lastSnapshot: RUN.snapshot,
        size: '1.5Gi',
        // files_new 12 + files_changed 3 + files_unmodified 840
        objectCount: 855,
        bytes: RUN.processedBytes,
        message,
        conditions: [
          readyCondition,
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
            id,
            event: 'backup.succeeded',
            url: receiver.url('/hooks/s3-success'),
            job: run.job,
            state: 'Delivered',
            attempts: 1,
            createdAt: OPERATOR_CLOCK_START.replace('Z', '.000Z'),
            lastAttemptTime: OPERATOR_CLOCK_START.replace('Z', '.000Z'),
            lastOutcome: 'delivered: HTTP 200',
          },
        ],
      }),
    );

    const delivered = await receiver.received.waitFor((r) => r.json.job === run.job);
    expect(delivered.path).toBe('/hooks/s3-success');
    expect(delivered.headers['webhook-id']).toBe(id);
    expect(delivered.verifiedBy).toEqual([SIGNING_SECRET]);
    expect(delivered.json).toEqual({
      event: 'backup.succeeded',
      s3Backup: { namespace: 's3-success', name: 'media', uid: created.metadata.uid },
      bucket: 'media',
      prefix: 'uploads',
      job: run.job,
      snapshotId: RUN.snapshot,
      size: '1.5Gi',
      objectCount: 855,
      bytes: RUN.processedBytes,
      startTime: RUN.started,
      completionTime: RUN.completed,
      message,
    });
    expect(backupOf('s3-success', 'media')!.metadata.annotations).toEqual({
      [LAST_NOTIFIED_JOB_ANNOTATION]: run.job,
    });
    expect(eventsIn('s3-success')).toEqual([
      {
        name: `${run.job}.backupstarted`,
        reason: 'BackupStarted',
        type: 'Normal',
        message: `Backup job ${run.job} started`,
      },
      { name: `${run.job}.backupsucceeded`, reason: 'BackupSucceeded', type: 'Normal', message },
    ]);
    const metrics = await operator.metrics();
    expect(metrics).toContain(
      `s3_backup_last_success_timestamp_seconds{namespace="s3-success",name="media"} ${Date.parse(RUN.completed) / 1000}`,
    );
    expect(metrics).toContain('s3_backup_objects{namespace="s3-success",name="media"} 855');
    expect(metrics).toContain(
      `s3_backup_bytes{namespace="s3-success",name="media"} ${RUN.processedBytes}`,
    );
    expect(metrics).toContain(
      's3_backup_webhook_attempts_total{namespace="s3-success",name="media",outcome="delivered"} 1',
    );

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

  it("a failed copy: Failed with rclone's error, a warning event and the signed failure webhook", async () => {
    await createSigningSecret(api, 's3-sync-failure');
    const created = await create('s3-sync-failure', 'media', { webhooks: webhooks() });
    await reconciled('s3-sync-failure', 'media');
    const run = { job: 'media-backup-28579861', startTime: RUN.started };
    startCronJobRun(server, 's3-sync-failure', 'media-backup', run);
    failSyncOfRun(server, 's3-sync-failure', run, {
      completionTime: RUN.completed,
      rcloneLog: RCLONE_LOG,
    });
    const message =
      'Backup job media-backup-28579861 failed: rclone: 2024/05/03 03:00:02 Failed to sync: AccessDenied: Access Denied';
    await expectEventually(() =>
      expect(backupOf('s3-sync-failure', 'media')!.status).toEqual({
        observedGeneration: 1,
        phase: 'Failed',
        message,
        conditions: [
          readyCondition,
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
    expect(delivered.path).toBe('/hooks/s3-failure');
    expect(delivered.headers['webhook-id']).toBe(
      deliveryId(created.metadata.uid!, run.job, 'backup.failed'),
    );
    expect(delivered.verifiedBy).toEqual([SIGNING_SECRET]);
    expect(delivered.json).toEqual({
      event: 'backup.failed',
      s3Backup: { namespace: 's3-sync-failure', name: 'media', uid: created.metadata.uid },
      bucket: 'media',
      prefix: null,
      job: run.job,
      snapshotId: null,
      size: null,
      objectCount: null,
      bytes: null,
      startTime: RUN.started,
      completionTime: RUN.completed,
      message,
    });
    expect(eventsIn('s3-sync-failure')).toContainEqual({
      name: `${run.job}.backupfailed`,
      reason: 'BackupFailed',
      type: 'Warning',
      message,
    });
  });

  it("a failed backup after the copy: restic's error, the last success kept", async () => {
    await create('s3-restic-failure', 'media');
    await reconciled('s3-restic-failure', 'media');
    const first = { job: 'media-backup-1', startTime: RUN.started };
    startCronJobRun(server, 's3-restic-failure', 'media-backup', first);
    finishCronJobRun(server, 's3-restic-failure', first, {
      succeeded: true,
      completionTime: RUN.completed,
      terminationMessage: resticSummaryLine(RUN.snapshot, 2048),
    });
    await expectEventually(() =>
      expect(backupOf('s3-restic-failure', 'media')!.status).toMatchObject({
        phase: 'Succeeded',
      }),
    );
    const second = { job: 'media-backup-2', startTime: '2024-05-04T03:00:00Z' };
    startCronJobRun(server, 's3-restic-failure', 'media-backup', second);
    finishCronJobRun(server, 's3-restic-failure', second, {
      succeeded: false,
      completionTime: '2024-05-04T03:01:00Z',
      terminationMessage: 'Fatal: wrong password or no key found',
    });
    await expectEventually(() =>
      expect(backupOf('s3-restic-failure', 'media')!.status).toMatchObject({
        phase: 'Failed',
        message: 'Backup job media-backup-2 failed: Fatal: wrong password or no key found',
        lastBackup: RUN.completed,
        lastSnapshot: RUN.snapshot,
        size: '2Ki',
        objectCount: 855,
        bytes: 2048,
      }),
    );
    // No webhooks configured: nothing queued, no WebhooksReady condition.
    const status = backupOf('s3-restic-failure', 'media')!.status!;
    expect(status.webhookDeliveries).toBeUndefined();
    expect(status.conditions!.map((c) => c.type)).toEqual(['Ready', 'BackupSucceeded']);
  });
});
