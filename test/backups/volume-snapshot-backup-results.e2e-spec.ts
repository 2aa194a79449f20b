import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deliveryId } from '@platform/backups';
import { CoreKinds, type KubeObject } from '@platform/kube';
import { expectEventually } from '@platform/testing';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import { createSigningSecret, resticSummaryLine, RUN, SIGNING_SECRET } from './support.js';
import {
  bindClaim,
  cinderState,
  createSnapshotBackup,
  finishJob,
  inPhase,
  prepareNamespace,
  seedOperatorSnapshot,
  type SnapshotEnvironment,
  snapshotBackupOf,
  startSnapshotEnvironment,
  stopSnapshotEnvironment,
} from './snapshot-support.js';

type EventObject = KubeObject & { reason: string; message: string; type: string };

describe('VolumeSnapshotBackup operator: snapshot retention, webhooks, events and metrics', () => {
  let env: SnapshotEnvironment;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    env = await startSnapshotEnvironment();
    receiver = await WebhookReceiver.start();
    receiver.secrets = [SIGNING_SECRET];
  });

  afterAll(async () => {
    await receiver?.close();
    await stopSnapshotEnvironment(env);
  });

  /** Runs a created resource through the temporary claim and its Job to `succeeded`. */
  async function runJob(ns: string, name: string, succeeded: boolean) {
    await expectEventually(() =>
      expect(env.server.get(CoreKinds.PersistentVolumeClaim, ns, `${name}-snapshot`)).toBeDefined(),
    );
    bindClaim(env, ns, `${name}-snapshot`);
    await expectEventually(() =>
      expect(env.server.get(CoreKinds.Job, ns, `${name}-backup`)).toBeDefined(),
    );
    finishJob(env, ns, `${name}-backup`, {
      succeeded,
      terminationMessage: succeeded
        ? resticSummaryLine(RUN.snapshot, RUN.processedBytes)
        : 'Fatal: repository is already locked',
      start: '2024-05-03T06:00:02Z',
      end: '2024-05-03T06:00:30Z',
    });
    return inPhase(env, ns, name, succeeded ? 'Succeeded' : 'Failed');
  }

  it('keeps the newest snapshots and those younger than keepForDays, deleting only its own for this claim', async () => {
    const ns = 'vsb-retention';
    const sourceId = await prepareNamespace(env, ns);
    const source = `${ns}/app-data`;
    const seeded = {
      day1: seedOperatorSnapshot(env, sourceId, source, 'backup-vsb-retention-a-1', 1),
      day8: seedOperatorSnapshot(env, sourceId, source, 'backup-vsb-retention-a-8', 8),
      day9: seedOperatorSnapshot(env, sourceId, source, 'backup-vsb-retention-a-9', 9),
      day10: seedOperatorSnapshot(env, sourceId, source, 'backup-vsb-retention-a-10', 10),
      // Another prefix, another claim's label, and one made by hand: never retention's.
      otherPrefix: seedOperatorSnapshot(env, sourceId, source, 'weekly-vsb-retention-a-30', 30),
      otherSource: seedOperatorSnapshot(env, sourceId, 'elsewhere/data', 'backup-x-30', 30),
      manual: env.cloud.resources.add(env.projectId, 'snapshots', {
        name: 'backup-by-hand',
        status: 'available',
        size: 20,
        volume_id: sourceId,
        metadata: {},
        created_at: '2024-01-01T00:00:00.000000',
      }),
    };
    await createSnapshotBackup(env, ns, 'kept', {
      snapshot: { retention: { keepLast: 3, keepForDays: 7 } },
    });
    const done = await runJob(ns, 'kept', true);
    const left = cinderState(env)
      .snapshots.filter((s) => s.volume_id === sourceId)
      .map((s) => s.id);
    // Newest first: this run's, 1 day, 8 days (kept as one of the last 3); 9 and 10 days go.
    expect(left.sort()).toEqual(
      [
        done.status!.currentSnapshot!.id!,
        seeded.day1.id,
        seeded.day8.id,
        seeded.otherPrefix.id,
        seeded.otherSource.id,
        seeded.manual.id,
      ].sort(),
    );
    const deletes = env.cloud
      .callsTo('block-storage', 'DELETE')
      .filter((c) => c.path.startsWith('/snapshots/'))
      .map((c) => c.path);
    expect(deletes.sort()).toEqual(
      [`/snapshots/${seeded.day10.id}`, `/snapshots/${seeded.day9.id}`].sort(),
    );
  });

  it('keepLast 0 and keepForDays 0 keep only the snapshot of the run that just succeeded', async () => {
    const ns = 'vsb-retention-none';
    const sourceId = await prepareNamespace(env, ns);
    seedOperatorSnapshot(env, sourceId, `${ns}/app-data`, 'backup-old-1', 1);
    await createSnapshotBackup(env, ns, 'latest', {
      snapshot: { retention: { keepLast: 0, keepForDays: 0 } },
    });
    const done = await runJob(ns, 'latest', true);
    expect(
      cinderState(env)
        .snapshots.filter((s) => s.volume_id === sourceId)
        .map((s) => s.id),
    ).toEqual([done.status!.currentSnapshot!.id]);
  });

  it('posts the signed outcome to the success webhook, and records the delivery and the events', async () => {
    const ns = 'vsb-hooks';
    await prepareNamespace(env, ns);
    await createSigningSecret(env.api, ns);
    const created = await createSnapshotBackup(env, ns, 'hooked', {
      webhooks: {
        success: receiver.url('/hooks/snapshot-ok'),
        failure: receiver.url('/hooks/snapshot-failed'),
        secretRef: { name: 'backup-hooks' },
      },
    });
    const done = await runJob(ns, 'hooked', true);
    const id = deliveryId(created.metadata.uid!, 'hooked-backup', 'backup.succeeded');
    const delivered = await receiver.received.waitFor((r) => r.headers['webhook-id'] === id);
    expect(delivered.path).toBe('/hooks/snapshot-ok');
    expect(delivered.verifiedBy).toEqual([SIGNING_SECRET]);
    expect(delivered.json).toEqual({
      event: 'backup.succeeded',
      volumeSnapshotBackup: { namespace: ns, name: 'hooked', uid: created.metadata.uid },
      job: 'hooked-backup',
      snapshotId: RUN.snapshot,
      cinderSnapshotId: done.status!.currentSnapshot!.id,
      volumeSize: '1.5Gi',
      startTime: '2024-05-03T06:00:00Z',
      completionTime: '2024-05-03T06:00:00Z',
      message: `Backup job hooked-backup created snapshot ${RUN.snapshot} (1.5Gi)`,
    });
    await expectEventually(() =>
      expect(snapshotBackupOf(env, ns, 'hooked')!.status?.webhookDeliveries).toEqual([
        expect.objectContaining({
          id,
          state: 'Delivered',
          attempts: 1,
          lastOutcome: 'delivered: HTTP 200',
        }),
      ]),
    );
    const events = env.server.list<EventObject>(CoreKinds.Event, ns).map((e) => [e.reason, e.type]);
    expect(events).toEqual(
      expect.arrayContaining([
        ['SnapshotCreated', 'Normal'],
        ['BackupSucceeded', 'Normal'],
      ]),
    );
  });

  it('retries the failure webhook after a failed run, with the same id and body', async () => {
    const ns = 'vsb-hooks-failed';
    await prepareNamespace(env, ns);
    await createSigningSecret(env.api, ns);
    const created = await createSnapshotBackup(env, ns, 'unlucky', {
      webhooks: {
        failure: receiver.url('/hooks/snapshot-failed'),
        secretRef: { name: 'backup-hooks' },
      },
    });
    receiver.answer(503);
    const failed = await runJob(ns, 'unlucky', false);
    expect(failed.status?.message).toBe(
      'Backup job unlucky-backup failed: Fatal: repository is already locked',
    );
    const id = deliveryId(created.metadata.uid!, 'unlucky-backup', 'backup.failed');
    await expectEventually(() =>
      expect(snapshotBackupOf(env, ns, 'unlucky')!.status?.webhookDeliveries?.[0]).toMatchObject({
        id,
        state: 'Pending',
        attempts: 1,
        lastOutcome: 'receiver answered 503',
      }),
    );
    await env.operator.advance({ ms: 50 });
    await expectEventually(() =>
      expect(snapshotBackupOf(env, ns, 'unlucky')!.status?.webhookDeliveries?.[0]).toMatchObject({
        state: 'Delivered',
        attempts: 2,
      }),
    );
    const attempts = receiver.byId(id);
    expect(attempts.map((a) => a.status)).toEqual([503, 200]);
    expect(attempts[1].body).toBe(attempts[0].body);
    expect(attempts[0].json).toMatchObject({
      event: 'backup.failed',
      snapshotId: null,
      job: 'unlucky-backup',
    });
    const metrics = await env.operator.metrics();
    expect(metrics).toContain(
      `volume_snapshot_backup_succeeded{namespace="${ns}",name="unlucky"} 0`,
    );
    expect(metrics).toContain(
      'volume_snapshot_backup_succeeded{namespace="vsb-hooks",name="hooked"} 1',
    );
    expect(metrics).toContain(
      `volume_snapshot_backup_completion_timestamp_seconds{namespace="${ns}",name="unlucky"} ${Date.parse(failed.status!.lastBackup!.timestamp!) / 1000}`,
    );
    const warning = env.server
      .list<EventObject>(CoreKinds.Event, ns)
      .find((e) => e.reason === 'BackupFailed');
    expect(warning).toMatchObject({ type: 'Warning', message: failed.status!.message });
  });
});
