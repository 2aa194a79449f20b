import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { CINDER_POLL_MS } from '@platform/backups';
import { CoreKinds, type KubeObject } from '@platform/kube';
import { expectEventually } from '@platform/testing';
import { resticSummaryLine, RUN } from './support.js';
import {
  bindClaim,
  cinderState,
  createSnapshotBackup,
  finishJob,
  inPhase,
  prepareNamespace,
  recordPhases,
  type SnapshotEnvironment,
  snapshotBackupOf,
  startSnapshotEnvironment,
  stopSnapshotEnvironment,
} from './snapshot-support.js';

type PersistentVolume = KubeObject<Record<string, unknown>>;
type Container = {
  volumeMounts: unknown[];
  resources: unknown;
  imagePullPolicy: string;
  command: string[];
};
type Job = KubeObject<{
  backoffLimit: number;
  template: { spec: { volumes: unknown[]; containers: Container[] } };
}>;

describe('VolumeSnapshotBackup operator: a run over Cinder from snapshot to cleanup', () => {
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

  it('goes through every phase in order, backs up a temporary volume of the snapshot and cleans up', async () => {
    const ns = 'vsb-run';
    const volumeId = await prepareNamespace(env, ns);
    const phases = recordPhases(env, ns);
    // Cinder holds new snapshots and volumes in `creating` until the test lets them through.
    env.cloud.cinder.snapshots = 'creating';
    env.cloud.cinder.volumes = 'creating';
    const created = await createSnapshotBackup(env, ns, 'nightly');

    // CreatingSnapshot: a forced snapshot of the attached volume, named and tagged for retention.
    const creating = await expectEventually(() => {
      const backup = snapshotBackupOf(env, ns, 'nightly')!;
      expect(backup.status?.currentSnapshot?.id).toBeDefined();
      return backup;
    });
    const [snapshot] = cinderState(env).snapshots;
    expect(snapshot).toMatchObject({
      name: 'backup-vsb-run-nightly-20240503060000',
      volume_id: volumeId,
      status: 'creating',
      size: 20,
      metadata: {
        'managed-by': 'backup-operator',
        'backups.k8s.neutral.com/source': 'vsb-run/app-data',
        'backups.k8s.neutral.com/volume-snapshot-backup': 'vsb-run/nightly',
        'backups.k8s.neutral.com/uid': created.metadata.uid,
      },
    });
    expect(env.cloud.callsTo('block-storage', 'POST')[0].body).toMatchObject({
      snapshot: { volume_id: volumeId, force: true },
    });
    expect(creating.status).toMatchObject({
      phase: 'CreatingSnapshot',
      currentSnapshot: {
        id: snapshot.id,
        name: 'backup-vsb-run-nightly-20240503060000',
        cinderVolumeId: volumeId,
        status: 'creating',
        sizeGB: 20,
      },
    });

    // CreatingVolume: the snapshot is available at the next look; a volume of it is made.
    env.cloud.cinder.snapshots = 'available';
    await env.operator.advance({ ms: CINDER_POLL_MS });
    const temporary = await expectEventually(() => {
      const backup = snapshotBackupOf(env, ns, 'nightly')!;
      expect(backup.status?.temporaryVolume?.cinderVolumeId).toBeDefined();
      return backup.status!.temporaryVolume!;
    });
    const volume = cinderState(env).volumes.find((v) => v.id === temporary.cinderVolumeId)!;
    expect(volume).toMatchObject({
      snapshot_id: snapshot.id,
      size: 20,
      name: 'snapshot-backup-vsb-run-nightly',
    });
    expect(temporary).toEqual({
      pvcName: 'nightly-snapshot',
      pvName: `snapshot-backup-${created.metadata.uid}`,
      cinderVolumeId: volume.id,
      status: 'creating',
    });

    // Available: a persistent volume of it, pre-bound to the temporary claim.
    env.cloud.cinder.volumes = 'available';
    await env.operator.advance({ ms: CINDER_POLL_MS });
    const pv = await expectEventually(() => {
      const found = env.server.get<PersistentVolume>(
        CoreKinds.PersistentVolume,
        undefined,
        temporary.pvName!,
      );
      expect(found).toBeDefined();
      return found!;
    });
    expect(pv.spec).toEqual({
      capacity: { storage: '20Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      volumeMode: 'Filesystem',
      storageClassName: 'csi-cinder-sc-delete',
      csi: { driver: 'cinder.csi.openstack.org', volumeHandle: volume.id, fsType: 'ext4' },
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: ns,
        name: 'nightly-snapshot',
      },
      nodeAffinity: expect.objectContaining({ required: expect.any(Object) }),
    });
    const claim = await expectEventually(() => {
      const found = env.server.get<KubeObject<Record<string, unknown>>>(
        CoreKinds.PersistentVolumeClaim,
        ns,
        'nightly-snapshot',
      );
      expect(found).toBeDefined();
      return found!;
    });
    expect(claim.spec).toMatchObject({
      volumeName: temporary.pvName,
      storageClassName: 'csi-cinder-sc-delete',
    });
    expect(claim.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'VolumeSnapshotBackup',
      uid: created.metadata.uid,
    });

    // Bound: the restic Job reads the temporary claim, read-only.
    bindClaim(env, ns, 'nightly-snapshot');
    const backupPhase = await inPhase(env, ns, 'nightly', 'Backup');
    expect(backupPhase.status?.temporaryVolume?.status).toBe('available');
    const job = await expectEventually(() => {
      const found = env.server.get<Job>(CoreKinds.Job, ns, 'nightly-backup');
      expect(found).toBeDefined();
      return found!;
    });
    const podSpec = job.spec!.template.spec;
    expect(podSpec.volumes).toContainEqual({
      name: 'data',
      persistentVolumeClaim: { claimName: 'nightly-snapshot', readOnly: true },
    });
    expect(podSpec.containers[0].volumeMounts).toContainEqual({
      name: 'data',
      mountPath: '/data',
      readOnly: true,
    });
    expect(podSpec.containers[0].resources).toEqual({
      requests: { memory: '256Mi', cpu: '200m' },
      limits: { memory: '2Gi', cpu: '2000m' },
    });
    expect(podSpec.containers[0].imagePullPolicy).toBe('IfNotPresent');
    expect(podSpec.containers[0].command[2]).toContain('--host vsb-run-app-data');

    // The Job ends: Cleanup removes the claim, the volume and its Kubernetes volume; Succeeded.
    finishJob(env, ns, 'nightly-backup', {
      succeeded: true,
      terminationMessage: resticSummaryLine(RUN.snapshot, RUN.processedBytes),
      start: '2024-05-03T06:00:12Z',
      end: '2024-05-03T06:02:12Z',
    });
    const done = await inPhase(env, ns, 'nightly', 'Succeeded');
    expect(done.status).toMatchObject({
      phase: 'Succeeded',
      message: `Backup job nightly-backup created snapshot ${RUN.snapshot} (1.5Gi)`,
      currentSnapshot: { id: snapshot.id, status: 'available' },
      backupJob: {
        name: 'nightly-backup',
        status: 'Succeeded',
        startTime: '2024-05-03T06:00:12Z',
        completionTime: '2024-05-03T06:02:12Z',
      },
      lastBackup: { timestamp: '2024-05-03T06:00:10Z', status: 'Succeeded', duration: '10s' },
    });
    // The recorder follows a watch, which may deliver the last change after the read above.
    await expectEventually(() =>
      expect(phases.of('nightly')).toEqual([
        'Pending',
        'CreatingSnapshot',
        'CreatingVolume',
        'Backup',
        'Cleanup',
        'Succeeded',
      ]),
    );
    phases.stop();
    expect(env.server.get(CoreKinds.PersistentVolumeClaim, ns, 'nightly-snapshot')).toBeUndefined();
    expect(
      env.server.get(CoreKinds.PersistentVolume, undefined, temporary.pvName!),
    ).toBeUndefined();
    expect(cinderState(env).volumes.map((v) => v.id)).toEqual([volumeId]);
    // The run's snapshot stays: it is what the snapshot retention keeps.
    expect(cinderState(env).snapshots.map((s) => s.id)).toEqual([snapshot.id]);
    expect(done.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Complete', 'True', 'Succeeded'],
      ['SnapshotReady', 'True', 'Available'],
      ['TemporaryVolumeReady', 'True', 'Bound'],
      ['Succeeded', 'True', 'BackupSucceeded'],
    ]);
  });
});
