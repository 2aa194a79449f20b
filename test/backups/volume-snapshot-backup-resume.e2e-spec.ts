import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { CINDER_POLL_MS, VolumeSnapshotBackupKind } from '@platform/backups';
import { CoreKinds } from '@platform/kube';
import { expectEventually } from '@platform/testing';
import { resticSummaryLine, RUN } from './support.js';
import {
  bindClaim,
  cinderState,
  createSnapshotBackup,
  finishJob,
  inPhase,
  prepareNamespace,
  restartOperator,
  type SnapshotEnvironment,
  snapshotBackupOf,
  startSnapshotEnvironment,
  stopSnapshotEnvironment,
} from './snapshot-support.js';

describe('VolumeSnapshotBackup operator: a run resumes from status after a crash and leaks nothing', () => {
  let env: SnapshotEnvironment;

  beforeAll(async () => {
    env = await startSnapshotEnvironment();
  });

  afterAll(async () => {
    await stopSnapshotEnvironment(env);
  });

  afterEach(() => {
    env.cloud.cinder.snapshots = 'available';
    env.cloud.cinder.volumes = 'available';
  });

  const posts = (path: RegExp) =>
    env.cloud.callsTo('block-storage', 'POST').filter((call) => path.test(call.path)).length;
  const statusOf = (ns: string, name: string) => snapshotBackupOf(env, ns, name)!.status!;

  it('an operator stopped after each step continues where status says, with one snapshot, one volume and one Job', async () => {
    const ns = 'vsb-crash';
    const sourceId = await prepareNamespace(env, ns);
    const snapshotPosts = posts(/^\/snapshots$/);
    const volumePosts = posts(/^\/volumes$/);
    env.cloud.cinder.snapshots = 'creating';
    env.cloud.cinder.volumes = 'creating';
    await createSnapshotBackup(env, ns, 'resumed');

    // Stopped while the snapshot is being created.
    const snapshotId = await expectEventually(() => {
      expect(statusOf(ns, 'resumed').currentSnapshot?.id).toBeDefined();
      return statusOf(ns, 'resumed').currentSnapshot!.id!;
    });
    await restartOperator(env);
    env.cloud.cinder.snapshots = 'available';
    await env.operator.advance({ ms: CINDER_POLL_MS });

    // Stopped while the temporary volume is being created.
    const volumeId = await expectEventually(() => {
      expect(statusOf(ns, 'resumed').temporaryVolume?.cinderVolumeId).toBeDefined();
      return statusOf(ns, 'resumed').temporaryVolume!.cinderVolumeId!;
    });
    await restartOperator(env);
    env.cloud.cinder.volumes = 'available';
    await env.operator.advance({ ms: CINDER_POLL_MS });

    // Stopped while the claim waits to be bound.
    await expectEventually(() =>
      expect(env.server.get(CoreKinds.PersistentVolumeClaim, ns, 'resumed-snapshot')).toBeDefined(),
    );
    await restartOperator(env);
    bindClaim(env, ns, 'resumed-snapshot');

    // Stopped while the Job runs.
    await expectEventually(() =>
      expect(env.server.get(CoreKinds.Job, ns, 'resumed-backup')).toBeDefined(),
    );
    await inPhase(env, ns, 'resumed', 'Backup');
    await restartOperator(env);
    finishJob(env, ns, 'resumed-backup', {
      succeeded: true,
      terminationMessage: resticSummaryLine(RUN.snapshot, RUN.processedBytes),
      start: '2024-05-03T06:00:01Z',
      end: '2024-05-03T06:00:40Z',
    });
    const done = await inPhase(env, ns, 'resumed', 'Succeeded');

    expect(done.status?.currentSnapshot?.id).toBe(snapshotId);
    expect(posts(/^\/snapshots$/) - snapshotPosts).toBe(1);
    expect(posts(/^\/volumes$/) - volumePosts).toBe(1);
    expect(
      cinderState(env)
        .snapshots.filter((s) => s.volume_id === sourceId)
        .map((s) => s.id),
    ).toEqual([snapshotId]);
    expect(cinderState(env).volumes.map((v) => v.id)).not.toContain(volumeId);
    expect(env.server.list(CoreKinds.Job, ns)).toHaveLength(1);
    expect(env.server.get(CoreKinds.PersistentVolumeClaim, ns, 'resumed-snapshot')).toBeUndefined();
  });

  it('answers lost after Cinder created the snapshot and the volume: the retries adopt them by name and uid', async () => {
    const ns = 'vsb-lost-answers';
    const sourceId = await prepareNamespace(env, ns);
    env.cloud.fail({
      service: 'block-storage',
      method: 'POST',
      path: /^\/snapshots$/,
      status: 500,
      afterApplying: true,
    });
    env.cloud.fail({
      service: 'block-storage',
      method: 'POST',
      path: /^\/volumes$/,
      status: 500,
      afterApplying: true,
    });
    const created = await createSnapshotBackup(env, ns, 'adopting');
    // The failed passes are retried after the runtime's backoff, on the operator's clock.
    for (
      let i = 0;
      i < 4 && !env.server.get(CoreKinds.PersistentVolumeClaim, ns, 'adopting-snapshot');
      i++
    ) {
      await env.operator.advance({ seconds: 5 });
    }
    await expectEventually(() =>
      expect(
        env.server.get(CoreKinds.PersistentVolumeClaim, ns, 'adopting-snapshot'),
      ).toBeDefined(),
    );
    const snapshots = cinderState(env).snapshots.filter((s) => s.volume_id === sourceId);
    expect(snapshots).toHaveLength(1);
    expect(statusOf(ns, 'adopting').currentSnapshot?.id).toBe(snapshots[0].id);
    const temporary = cinderState(env).volumes.filter(
      (v) =>
        (v.metadata as Record<string, string>)['backups.k8s.neutral.com/uid'] ===
        created.metadata.uid,
    );
    expect(temporary).toHaveLength(1);
    expect(statusOf(ns, 'adopting').temporaryVolume?.cinderVolumeId).toBe(temporary[0].id);
  });

  it('deleting a resource mid-run removes its claim, persistent volume, Cinder volume and snapshot', async () => {
    const ns = 'vsb-deleted';
    const sourceId = await prepareNamespace(env, ns);
    const created = await createSnapshotBackup(env, ns, 'dropped');
    await expectEventually(() =>
      expect(env.server.get(CoreKinds.PersistentVolumeClaim, ns, 'dropped-snapshot')).toBeDefined(),
    );
    const volumeId = statusOf(ns, 'dropped').temporaryVolume!.cinderVolumeId;
    await env.api.delete(VolumeSnapshotBackupKind, ns, 'dropped');
    await expectEventually(() => expect(snapshotBackupOf(env, ns, 'dropped')).toBeUndefined());
    expect(cinderState(env).volumes.map((v) => v.id)).not.toContain(volumeId);
    expect(cinderState(env).snapshots.filter((s) => s.volume_id === sourceId)).toEqual([]);
    expect(
      env.server.get(
        CoreKinds.PersistentVolume,
        undefined,
        `snapshot-backup-${created.metadata.uid}`,
      ),
    ).toBeUndefined();
  });
});
