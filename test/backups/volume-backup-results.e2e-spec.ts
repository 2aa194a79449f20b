import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deliveryId, HELD_RETRY_MS, type VolumeBackup } from '@platform/backups';
import { CoreKinds, KubeApiError, KubeClient, type KubeObject } from '@platform/kube';
import { expectEventually, type FakeKubeApiServer } from '@platform/testing';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import {
  type BackupOperator,
  createSigningSecret,
  finishCronJobRun,
  OPERATOR_CLOCK_START,
  resticSummaryLine,
  RUN,
  SIGNING_SECRET,
  startBackupApiServer,
  startBackupOperator,
  startCronJobRun,
  volumeBackupHelpers,
} from './support.js';

type EventObject = KubeObject & {
  reason: string;
  message: string;
  type: string;
  involvedObject: { kind: string; name: string; uid: string };
};

describe('VolumeBackup operator: durable webhooks, check and restore-test results, events', () => {
  let server: FakeKubeApiServer;
  let operator: BackupOperator;
  let api: KubeClient;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    server = await startBackupApiServer();
    api = KubeClient.fromKubeConfig(server.kubeConfig());
    receiver = await WebhookReceiver.start();
    receiver.secrets = [SIGNING_SECRET];
    operator = await startBackupOperator(server);
  });

  afterAll(async () => {
    await operator?.close();
    await receiver?.close();
    await server?.stop();
  });

  const { create, backupOf, reconciled } = volumeBackupHelpers(() => ({ server, api }));
  const deliveryOf = (namespace: string) =>
    backupOf(namespace, 'app')!.status?.webhookDeliveries?.[0];
  const eventsIn = (namespace: string) =>
    server
      .list<EventObject>(CoreKinds.Event, namespace)
      .map((e) => ({ name: e.metadata.name, reason: e.reason, type: e.type, message: e.message }))
      .sort((a, b) => a.name!.localeCompare(b.name!));

  it('resumes a delivery that was waiting for its retry when the operator restarted', async () => {
    await createSigningSecret(api, 'vb-restart');
    const created = await create('vb-restart', 'app', {
      webhooks: { failure: receiver.url('/hooks/restart'), secretRef: { name: 'backup-hooks' } },
    });
    await reconciled('vb-restart', 'app');
    receiver.answer(500);
    const run = { job: 'app-backup-28579870', startTime: RUN.started };
    const id = deliveryId(created.metadata.uid!, run.job, 'backup.failed');
    startCronJobRun(server, 'vb-restart', 'app-backup', run);
    finishCronJobRun(server, 'vb-restart', run, {
      succeeded: false,
      completionTime: RUN.completed,
      terminationMessage: 'Fatal: wrong password or no key found',
    });
    await expectEventually(() =>
      expect(deliveryOf('vb-restart')).toMatchObject({ id, state: 'Pending', attempts: 1 }),
    );
    const pending = deliveryOf('vb-restart')!;
    expect(JSON.parse(pending.payload!)).toMatchObject({ event: 'backup.failed', job: run.job });

    // The retry lives in status only: a new process finds it and sends it once it is due.
    await operator.close();
    operator = await startBackupOperator(server);
    await operator.settled();
    expect(receiver.byId(id)).toHaveLength(1);
    await operator.advance({ ms: 50 });
    await expectEventually(() =>
      expect(deliveryOf('vb-restart')).toMatchObject({
        id,
        state: 'Delivered',
        attempts: 2,
        lastOutcome: 'delivered: HTTP 200',
      }),
    );
    const attempts = receiver.byId(id);
    expect(attempts.map((r) => r.status)).toEqual([500, 200]);
    expect(attempts[1].body).toBe(attempts[0].body);
    expect(attempts[1].verifiedBy).toEqual([SIGNING_SECRET]);
  });

  it('holds deliveries while the signing Secret is missing, and sends them once it exists', async () => {
    const created = await create('vb-nosecret', 'app', {
      webhooks: { success: receiver.url('/hooks/nosecret'), secretRef: { name: 'backup-hooks' } },
    });
    await reconciled('vb-nosecret', 'app');
    const run = { job: 'app-backup-28579871', startTime: RUN.started };
    startCronJobRun(server, 'vb-nosecret', 'app-backup', run);
    finishCronJobRun(server, 'vb-nosecret', run, {
      succeeded: true,
      completionTime: RUN.completed,
      terminationMessage: resticSummaryLine(RUN.snapshot, 4096),
    });
    await expectEventually(() => {
      const status = backupOf('vb-nosecret', 'app')!.status!;
      expect(status.conditions).toContainEqual({
        type: 'WebhooksReady',
        status: 'False',
        reason: 'WebhookSecretMissing',
        message: 'Secret vb-nosecret/backup-hooks does not exist',
        lastTransitionTime: OPERATOR_CLOCK_START,
      });
      expect(status.webhookDeliveries).toEqual([
        expect.objectContaining({ state: 'Pending', attempts: 0 }),
      ]);
    });
    await operator.settled();
    expect(receiver.received.items.filter((r) => r.path === '/hooks/nosecret')).toHaveLength(0);

    await createSigningSecret(api, 'vb-nosecret');
    await operator.advance({ ms: HELD_RETRY_MS });
    await expectEventually(() =>
      expect(deliveryOf('vb-nosecret')).toMatchObject({ state: 'Delivered', attempts: 1 }),
    );
    const [delivered] = receiver.byId(
      deliveryId(created.metadata.uid!, run.job, 'backup.succeeded'),
    );
    expect(delivered.verifiedBy).toEqual([SIGNING_SECRET]);
  });

  it('reports check and restore-test results in status, conditions, metrics, events and the failure webhook', async () => {
    await createSigningSecret(api, 'vb-verify');
    const created = await create('vb-verify', 'app', {
      check: { enabled: true },
      restoreTest: { enabled: true },
      webhooks: { failure: receiver.url('/hooks/verify'), secretRef: { name: 'backup-hooks' } },
    });
    await reconciled('vb-verify', 'app');
    const restoreRun = { job: 'app-restore-test-28579900', startTime: '2024-05-03T05:00:00Z' };
    startCronJobRun(server, 'vb-verify', 'app-restore-test', restoreRun);
    await expectEventually(() =>
      expect(eventsIn('vb-verify').map((e) => e.reason)).toContain('RestoreTestStarted'),
    );
    finishCronJobRun(server, 'vb-verify', restoreRun, {
      succeeded: true,
      completionTime: '2024-05-03T05:01:40Z',
      terminationMessage: JSON.stringify({
        snapshot_id: RUN.snapshot,
        snapshot_time: '2024-05-03T03:00:02Z',
        files_checked: 50,
        files_verified: 48,
        files_changed: 2,
        mismatches: 0,
      }),
    });
    const restoreMessage = `Restore test job ${restoreRun.job} passed: 50 files restored from snapshot ${RUN.snapshot}, 48 verified, 2 changed since the snapshot`;
    const restoreTest = {
      job: restoreRun.job,
      result: 'Passed',
      lastRun: '2024-05-03T05:01:40Z',
      message: restoreMessage,
      snapshotId: RUN.snapshot,
      filesChecked: 50,
      filesVerified: 48,
      filesChanged: 2,
      mismatches: 0,
    };
    await expectEventually(() =>
      expect(backupOf('vb-verify', 'app')!.status?.restoreTest).toEqual(restoreTest),
    );

    const checkRun = { job: 'app-check-28579901', startTime: '2024-05-03T04:00:00Z' };
    startCronJobRun(server, 'vb-verify', 'app-check', checkRun);
    // A run the operator never sees running gets no start event: wait for it.
    await expectEventually(() =>
      expect(eventsIn('vb-verify').map((e) => e.reason)).toContain('CheckStarted'),
    );
    finishCronJobRun(server, 'vb-verify', checkRun, {
      succeeded: false,
      completionTime: '2024-05-03T04:00:30Z',
      terminationMessage:
        'error: pack 2f3a1b: not referenced in any index\nFatal: repository contains errors',
    });
    const check = {
      job: checkRun.job,
      result: 'Failed',
      lastRun: '2024-05-03T04:00:30Z',
      message: `Check job ${checkRun.job} failed: Fatal: repository contains errors`,
    };
    await expectEventually(() => {
      const status = backupOf('vb-verify', 'app')!.status!;
      expect(status.check).toEqual(check);
      expect(status.conditions).toEqual(
        expect.arrayContaining([
          {
            type: 'RestoreTestPassed',
            status: 'True',
            reason: 'RestoreTestPassed',
            message: restoreMessage,
            // The clock moved on in the tests before.
            lastTransitionTime: expect.any(String),
          },
          {
            type: 'CheckPassed',
            status: 'False',
            reason: 'CheckFailed',
            message: check.message,
            lastTransitionTime: expect.any(String),
          },
        ]),
      );
    });

    const id = deliveryId(created.metadata.uid!, checkRun.job, 'check.failed');
    const delivered = await receiver.received.waitFor((r) => r.headers['webhook-id'] === id);
    expect(delivered.verifiedBy).toEqual([SIGNING_SECRET]);
    expect(delivered.json).toEqual({
      event: 'check.failed',
      volumeBackup: { namespace: 'vb-verify', name: 'app', uid: created.metadata.uid },
      job: checkRun.job,
      snapshotId: null,
      volumeSize: null,
      startTime: null,
      completionTime: '2024-05-03T04:00:30Z',
      message: check.message,
      check,
      restoreTest,
    });
    // A passed restore test is not a failure: nothing was posted for it.
    expect(receiver.received.items.filter((r) => r.json.job === restoreRun.job)).toHaveLength(0);

    await operator.settled();
    const metrics = await operator.metrics();
    const labels = 'namespace="vb-verify",name="app"';
    expect(metrics).toContain(`volume_backup_verification_passed{${labels},type="check"} 0`);
    expect(metrics).toContain(`volume_backup_verification_passed{${labels},type="restore-test"} 1`);
    expect(metrics).toContain(
      `volume_backup_verification_last_run_timestamp_seconds{${labels},type="check"} ${Date.parse('2024-05-03T04:00:30Z') / 1000}`,
    );
    expect(metrics).toContain(`volume_backup_restore_test_files_verified{${labels}} 48`);

    expect(eventsIn('vb-verify')).toEqual([
      {
        name: `${checkRun.job}.checkfailed`,
        reason: 'CheckFailed',
        type: 'Warning',
        message: check.message,
      },
      {
        name: `${checkRun.job}.checkstarted`,
        reason: 'CheckStarted',
        type: 'Normal',
        message: `Check job ${checkRun.job} started`,
      },
      {
        name: `${restoreRun.job}.restoretestpassed`,
        reason: 'RestoreTestPassed',
        type: 'Normal',
        message: restoreMessage,
      },
      {
        name: `${restoreRun.job}.restoreteststarted`,
        reason: 'RestoreTestStarted',
        type: 'Normal',
        message: `Restore test job ${restoreRun.job} started`,
      },
    ]);
    const event = server.get<EventObject>(
      CoreKinds.Event,
      'vb-verify',
      `${checkRun.job}.checkfailed`,
    )!;
    expect(event.involvedObject).toMatchObject({
      kind: 'VolumeBackup',
      name: 'app',
      uid: created.metadata.uid,
    });
  });

  it('records Events when a backup starts and when it ends', async () => {
    await create('vb-events', 'app');
    await reconciled('vb-events', 'app');
    const run = { job: 'app-backup-28579880', startTime: RUN.started };
    startCronJobRun(server, 'vb-events', 'app-backup', run);
    await expectEventually(() =>
      expect(eventsIn('vb-events').map((e) => e.reason)).toEqual(['BackupStarted']),
    );
    finishCronJobRun(server, 'vb-events', run, {
      succeeded: true,
      completionTime: RUN.completed,
      terminationMessage: resticSummaryLine(RUN.snapshot, 2048),
    });
    await expectEventually(() =>
      expect(eventsIn('vb-events')).toEqual([
        {
          name: `${run.job}.backupstarted`,
          reason: 'BackupStarted',
          type: 'Normal',
          message: `Backup job ${run.job} started`,
        },
        {
          name: `${run.job}.backupsucceeded`,
          reason: 'BackupSucceeded',
          type: 'Normal',
          message: `Backup job ${run.job} created snapshot ${RUN.snapshot} (2Ki)`,
        },
      ]),
    );
  });

  it.each(['local', 'sftp'])('refuses a %s repository with 422', async (type) => {
    const refused = await create('vb-refused', `app-${type}`, {
      repository: { type: type as 's3', url: `${type}:/srv/backups`, secretRef: { name: 'r' } },
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(KubeApiError);
    expect((refused as KubeApiError).status).toBe(422);
    expect((refused as KubeApiError).message).toContain(
      `spec.repository.type: Unsupported value: "${type}": supported values: "s3", "gcs", "azure", "rest"`,
    );
    expect(server.get<VolumeBackup>(CoreKinds.Pod, 'vb-refused', `app-${type}`)).toBeUndefined();
  });
});
