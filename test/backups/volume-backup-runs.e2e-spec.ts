import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectEventually } from '@platform/testing';
import { LAST_NOTIFIED_JOB_ANNOTATION } from '@platform/backups';
import { KubeClient } from '@platform/kube';
import type { FakeKubeApiServer } from '@platform/testing';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import {
  type BackupOperator,
  finishCronJobRun,
  OPERATOR_CLOCK_START,
  RESYNC_PERIOD_SECONDS,
  resticSummaryLine,
  RUN,
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
    receiver.verifying = false;
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

  it('moves to Running, then Succeeded with the snapshot, and posts the success webhook once', async () => {
    const created = await create('vb-success', 'app', {
      webhooks: {
        success: receiver.url('/hooks/success'),
        failure: receiver.url('/hooks/failure'),
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
        ],
      }),
    );

    const delivered = await receiver.received.waitFor((r) => r.json.job === run.job);
    expect(delivered.path).toBe('/hooks/success');
    expect(delivered.headers['content-type']).toBe('application/json');
    expect(delivered.json).toEqual({
      event: 'backup.succeeded',
      volumeBackup: { namespace: 'vb-success', name: 'app', uid: created.metadata.uid },
      job: 'app-backup-28579860',
      snapshotId: RUN.snapshot,
      volumeSize: '1.5Gi',
      startTime: RUN.started,
      completionTime: RUN.completed,
      message,
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
    const created = await create('vb-failure', 'app', {
      webhooks: {
        success: receiver.url('/hooks/success'),
        failure: receiver.url('/hooks/failure'),
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
    });
  });

  it('retries the webhook while the receiver answers 500', async () => {
    await create('vb-retry', 'app', { webhooks: { success: receiver.url('/hooks/retry') } });
    await reconciled('vb-retry', 'app');
    receiver.answer(500, 500);
    const run = { job: 'app-backup-28579862', startTime: RUN.started };
    startCronJobRun(server, 'vb-retry', 'app-backup', run);
    finishCronJobRun(server, 'vb-retry', run, {
      succeeded: true,
      completionTime: RUN.completed,
      terminationMessage: resticSummaryLine(RUN.snapshot, 2048),
    });
    await expectEventually(() => {
      const attempts = receiver.received.items.filter((r) => r.json.job === run.job);
      expect(attempts.map((r) => r.status)).toEqual([500, 500, 200]);
      expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
    });
    await operator.settled();
    expect(receiver.received.items.filter((r) => r.json.job === run.job)).toHaveLength(3);
    expect(backupOf('vb-retry', 'app')!.status).toMatchObject({
      phase: 'Succeeded',
      volumeSize: '2Ki',
    });
  });

  it('exports the time of the last success per VolumeBackup', async () => {
    await expectEventually(async () =>
      expect(await operator.metrics()).toContain(
        `volume_backup_last_success_timestamp_seconds{namespace="vb-success",name="app"} ${Date.parse(RUN.completed) / 1000}`,
      ),
    );
  });
});
