import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { CINDER_POLL_MS, WAITING_POLL_MS } from '@platform/backups';
import { CoreKinds, type KubeObject } from '@platform/kube';
import { expectEventually, seedVolume } from '@platform/testing';
import {
  bindClaim,
  cinderState,
  createSnapshotBackup,
  finishJob,
  inPhase,
  passwordCredentials,
  prepareNamespace,
  type SnapshotEnvironment,
  snapshotBackupOf,
  startSnapshotEnvironment,
  stopSnapshotEnvironment,
} from './snapshot-support.js';

const conditionOf = (env: SnapshotEnvironment, ns: string, name: string, type: string) =>
  snapshotBackupOf(env, ns, name)?.status?.conditions?.find((c) => c.type === type);

describe('VolumeSnapshotBackup operator: timeouts, refusals and failures end in Failed and leave nothing', () => {
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

  const temporaryObjectsOf = (ns: string, name: string) => {
    const backup = snapshotBackupOf(env, ns, name)!;
    return {
      claim: env.server.get(CoreKinds.PersistentVolumeClaim, ns, `${name}-snapshot`),
      volume: env.server.get(
        CoreKinds.PersistentVolume,
        undefined,
        `snapshot-backup-${backup.metadata.uid}`,
      ),
    };
  };

  it('a snapshot not available within snapshot.timeout fails the run, and the snapshot is deleted once Cinder allows it', async () => {
    const ns = 'vsb-snap-timeout';
    const volumeId = await prepareNamespace(env, ns);
    env.cloud.cinder.snapshots = 'creating';
    await createSnapshotBackup(env, ns, 'slow', { snapshot: { timeout: 60 } });
    const creating = await expectEventually(() => {
      const status = snapshotBackupOf(env, ns, 'slow')!.status;
      expect(status?.currentSnapshot?.status).toBe('creating');
      return status!;
    });
    const snapshotId = creating.currentSnapshot!.id!;

    await env.operator.advance({ seconds: 61 });
    const message = `Snapshot ${snapshotId} did not become available within 60s (status creating)`;
    // Cinder refuses to delete a snapshot while it is being created: Cleanup waits for it.
    const cleaning = await inPhase(env, ns, 'slow', 'Cleanup');
    expect(cleaning.status?.message).toBe(
      `Cleaning up: waiting to delete snapshot ${snapshotId} (status creating)`,
    );
    expect(conditionOf(env, ns, 'slow', 'Succeeded')).toMatchObject({
      status: 'False',
      reason: 'SnapshotTimeout',
      message,
    });

    env.cloud.cinder.snapshots = 'error';
    await env.operator.advance({ ms: CINDER_POLL_MS });
    const failed = await inPhase(env, ns, 'slow', 'Failed');
    expect(failed.status).toMatchObject({
      message,
      lastBackup: { status: 'Failed', timestamp: '2024-05-03T06:01:06Z', duration: '1m6s' },
    });
    expect(cinderState(env).snapshots.filter((s) => s.volume_id === volumeId)).toEqual([]);
    expect(failed.status?.temporaryVolume).toBeUndefined();
  });

  it('a temporary claim not bound within temporaryVolume.timeout fails the run and removes the claim, both volumes and the snapshot', async () => {
    const ns = 'vsb-bind-timeout';
    const volumeId = await prepareNamespace(env, ns);
    await createSnapshotBackup(env, ns, 'unbound', { temporaryVolume: { timeout: 30 } });
    const waiting = await expectEventually(() => {
      const backup = snapshotBackupOf(env, ns, 'unbound')!;
      expect(backup.status?.message).toBe('Waiting for claim unbound-snapshot to bind');
      return backup;
    });
    expect(temporaryObjectsOf(ns, 'unbound').claim).toBeDefined();
    expect(temporaryObjectsOf(ns, 'unbound').volume).toBeDefined();
    const temporaryVolumeId = waiting.status!.temporaryVolume!.cinderVolumeId;
    expect(cinderState(env).volumes.map((v) => v.id)).toContain(temporaryVolumeId);

    await env.operator.advance({ seconds: 31 });
    const failed = await inPhase(env, ns, 'unbound', 'Failed');
    expect(failed.status?.message).toBe(
      'The temporary volume was not ready within 30s: claim unbound-snapshot is Pending',
    );
    expect(conditionOf(env, ns, 'unbound', 'Succeeded')?.reason).toBe('TemporaryVolumeTimeout');
    expect(temporaryObjectsOf(ns, 'unbound')).toEqual({ claim: undefined, volume: undefined });
    expect(cinderState(env).volumes.map((v) => v.id)).not.toContain(temporaryVolumeId);
    expect(cinderState(env).snapshots.filter((s) => s.volume_id === volumeId)).toEqual([]);
  });

  it('a temporary Cinder volume that stays creating past the timeout fails the run', async () => {
    const ns = 'vsb-volume-timeout';
    await prepareNamespace(env, ns);
    env.cloud.cinder.volumes = 'creating';
    await createSnapshotBackup(env, ns, 'stuck', { temporaryVolume: { timeout: 20 } });
    const temporaryVolumeId = await expectEventually(() => {
      const id = snapshotBackupOf(env, ns, 'stuck')!.status?.temporaryVolume?.cinderVolumeId;
      expect(id).toBeDefined();
      return id!;
    });
    await env.operator.advance({ seconds: 21 });
    const cleaning = await inPhase(env, ns, 'stuck', 'Cleanup');
    // A volume being created cannot be deleted: Cleanup waits until Cinder settles it.
    expect(cleaning.status?.message).toBe(
      `Cleaning up: waiting to delete temporary volume ${temporaryVolumeId} (status creating)`,
    );
    expect(conditionOf(env, ns, 'stuck', 'Succeeded')?.message).toBe(
      `The temporary volume was not ready within 20s: Cinder volume ${temporaryVolumeId} is creating`,
    );
    env.cloud.cinder.volumes = 'error';
    await env.operator.advance({ ms: CINDER_POLL_MS });
    await inPhase(env, ns, 'stuck', 'Failed');
    expect(cinderState(env).volumes.map((v) => v.id)).not.toContain(temporaryVolumeId);
  });

  it("a failed backup Job fails the run with restic's error and deletes the snapshot it read", async () => {
    const ns = 'vsb-job-failed';
    const volumeId = await prepareNamespace(env, ns);
    await createSnapshotBackup(env, ns, 'broken');
    await expectEventually(() => expect(temporaryObjectsOf(ns, 'broken').claim).toBeDefined());
    bindClaim(env, ns, 'broken-snapshot');
    await expectEventually(() =>
      expect(env.server.get(CoreKinds.Job, ns, 'broken-backup')).toBeDefined(),
    );
    finishJob(env, ns, 'broken-backup', {
      succeeded: false,
      terminationMessage: 'Fatal: unable to open repository: wrong password or no key found',
      start: '2024-05-03T06:00:05Z',
      end: '2024-05-03T06:00:09Z',
    });
    const failed = await inPhase(env, ns, 'broken', 'Failed');
    expect(failed.status).toMatchObject({
      message:
        'Backup job broken-backup failed: Fatal: unable to open repository: wrong password or no key found',
      backupJob: { name: 'broken-backup', status: 'Failed', startTime: '2024-05-03T06:00:05Z' },
      lastBackup: { status: 'Failed' },
    });
    expect(cinderState(env).snapshots.filter((s) => s.volume_id === volumeId)).toEqual([]);
    expect(temporaryObjectsOf(ns, 'broken')).toEqual({ claim: undefined, volume: undefined });
    // The Job stays for its logs; it goes with the resource.
    expect(env.server.get(CoreKinds.Job, ns, 'broken-backup')).toBeDefined();
  });

  it('without force an attached volume is refused by Cinder: Failed with its reason, nothing created', async () => {
    const ns = 'vsb-no-force';
    const volumeId = await prepareNamespace(env, ns);
    await createSnapshotBackup(env, ns, 'attached', { snapshot: { force: false } });
    const failed = await inPhase(env, ns, 'attached', 'Failed');
    expect(failed.status?.message).toBe(
      `Cinder refused the snapshot of volume ${volumeId}: Invalid volume: Volume ${volumeId} status must be available, but current status is: in-use.`,
    );
    expect(conditionOf(env, ns, 'attached', 'Succeeded')?.reason).toBe('SnapshotRefused');
    expect(cinderState(env).snapshots.filter((s) => s.volume_id === volumeId)).toEqual([]);
  });

  it('a claim whose volume is not a Cinder CSI volume fails at once, naming its driver', async () => {
    const ns = 'vsb-not-cinder';
    await prepareNamespace(env, ns);
    const pv = env.server.get<KubeObject<{ csi: object }>>(
      CoreKinds.PersistentVolume,
      undefined,
      `pvc-${ns}-app-data`,
    )!;
    env.server.put(CoreKinds.PersistentVolume, {
      ...pv,
      spec: { ...pv.spec, csi: { driver: 'rbd.csi.ceph.com', volumeHandle: 'x' } },
    });
    await createSnapshotBackup(env, ns, 'ceph');
    const failed = await inPhase(env, ns, 'ceph', 'Failed');
    expect(failed.status?.message).toBe(
      `PersistentVolume pvc-${ns}-app-data of PersistentVolumeClaim ${ns}/app-data is not a Cinder volume (CSI driver rbd.csi.ceph.com)`,
    );
    expect(failed.status?.currentSnapshot).toBeUndefined();
  });

  it('with autoDiscover off the claim annotation names the Cinder volume; without it the run fails', async () => {
    const ns = 'vsb-annotated';
    await prepareNamespace(env, ns);
    const named = seedVolume(env.cloud.resources, env.projectId, { name: 'named', size: 5 });
    await createSnapshotBackup(env, ns, 'unnamed', {
      openstack: { credentialsSecretRef: { name: 'openstack' }, autoDiscover: false },
    });
    const failed = await inPhase(env, ns, 'unnamed', 'Failed');
    expect(failed.status?.message).toBe(
      `openstack.autoDiscover is false and PersistentVolumeClaim ${ns}/app-data has no backups.k8s.neutral.com/cinder-volume-id annotation`,
    );

    const claim = env.server.get<KubeObject>(CoreKinds.PersistentVolumeClaim, ns, 'app-data')!;
    env.server.put(CoreKinds.PersistentVolumeClaim, {
      ...claim,
      metadata: {
        ...claim.metadata,
        annotations: { 'backups.k8s.neutral.com/cinder-volume-id': named.id },
      },
    });
    await createSnapshotBackup(env, ns, 'annotated', {
      openstack: { credentialsSecretRef: { name: 'openstack' }, autoDiscover: false },
    });
    await expectEventually(() =>
      expect(snapshotBackupOf(env, ns, 'annotated')!.status?.currentSnapshot).toMatchObject({
        cinderVolumeId: named.id,
        sizeGB: 5,
      }),
    );
  });

  it('waits in Pending while the credentials Secret is missing, then runs with an application credential', async () => {
    const ns = 'vsb-credentials';
    const appCredential = env.cloud.keystone.addApplicationCredential(env.projectId);
    await prepareNamespace(env, ns, {});
    await env.api.delete(CoreKinds.Secret, ns, 'openstack');
    await createSnapshotBackup(env, ns, 'later');
    const waiting = await expectEventually(() => {
      const backup = snapshotBackupOf(env, ns, 'later')!;
      expect(backup.status?.message).toBe(`Secret ${ns}/openstack does not exist`);
      return backup;
    });
    expect(waiting.status?.phase).toBe('Pending');
    expect(conditionOf(env, ns, 'later', 'CredentialsReady')).toMatchObject({
      status: 'False',
      reason: 'CredentialsUnavailable',
    });

    const encode = (value: string) => Buffer.from(value).toString('base64');
    await env.api.create(CoreKinds.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'openstack', namespace: ns },
      data: {
        OS_AUTH_URL: encode(env.cloud.authUrl),
        OS_APPLICATION_CREDENTIAL_ID: encode(appCredential.id),
        OS_APPLICATION_CREDENTIAL_SECRET: encode(appCredential.secret),
        OS_REGION_NAME: encode(env.cloud.region),
      },
    } as KubeObject);
    await env.operator.advance({ ms: WAITING_POLL_MS });
    await expectEventually(() =>
      expect(snapshotBackupOf(env, ns, 'later')!.status?.currentSnapshot?.id).toBeDefined(),
    );
    expect(conditionOf(env, ns, 'later', 'CredentialsReady')).toMatchObject({
      status: 'True',
      message: `Secret ${ns}/openstack gives access`,
    });
    const auth = env.cloud
      .callsTo('identity', 'POST')
      .map((c) => c.body as { auth: { identity: { methods: string[] }; scope?: unknown } })
      .find((b) => b.auth.identity.methods.includes('application_credential'));
    expect(auth?.auth.scope).toBeUndefined();
  });

  it('credentials Keystone refuses keep the run waiting with the reason', async () => {
    const ns = 'vsb-refused';
    await prepareNamespace(env, ns, { ...passwordCredentials(env), password: 'wrong' });
    await createSnapshotBackup(env, ns, 'denied');
    const waiting = await expectEventually(() => {
      const backup = snapshotBackupOf(env, ns, 'denied')!;
      expect(backup.status?.message).toBe('Keystone refused the credentials (401)');
      return backup;
    });
    expect(waiting.status?.phase).toBe('Pending');
    expect(conditionOf(env, ns, 'denied', 'CredentialsReady')?.reason).toBe('OpenStackAuthRefused');
  });
});
