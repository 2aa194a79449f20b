import { describe, expect, it } from '@jest/globals';
import { VolumeBackupKind, VolumeRestoreKind, type VolumeRestoreSpec } from '@platform/backups';
import { CoreKinds, type KubeObject } from '@platform/kube';
import { FakeKubeApiServer, expectEventually } from '@platform/testing';
import { iso, NS, REPOSITORY, type RestoreJob, useRestoreHarness } from './restore-support.js';

const t = useRestoreHarness();
const { createRestore, statusOf, jobOf, restoreJobs } = t;

describe('VolumeRestore sources and targets', () => {
  it.each([
    ['nosource', 'neither source', {}, 'give sourceBackup or sourceRepository'],
    [
      'twosources',
      'both sources',
      { sourceBackup: { volumeBackupRef: { name: 'nightly' } }, sourceRepository: REPOSITORY },
      'give either sourceBackup or sourceRepository, not both',
    ],
  ])('%s: fails with %s and creates nothing', async (name, _case, source, message) => {
    await createRestore(name, {
      ...(source as Partial<VolumeRestoreSpec>),
      targetPVC: { size: '1Gi' },
    });
    await expectEventually(() => expect(statusOf(name).phase).toBe('Failed'));
    expect(statusOf(name)).toMatchObject({
      phase: 'Failed',
      message,
      conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidSource', message }],
    });
    await t.operator.settled();
    expect(restoreJobs(name)).toEqual([]);
    expect(t.server.get(CoreKinds.PersistentVolumeClaim, NS, `${name}-restored`)).toBeUndefined();
  });

  it('fails a name its last Job cannot carry and creates nothing', async () => {
    const name = 'orders-database-primary-restore-before-migration-00421';
    expect(name).toHaveLength(54);
    await createRestore(name, { sourceRepository: REPOSITORY, targetPVC: { size: '1Gi' } });
    await expectEventually(() => expect(statusOf(name).phase).toBe('Failed'));
    expect(statusOf(name)).toMatchObject({
      message: `the name "${name}" is too long: the Job of its last attempt, "${name}-restore-4", would have 64 characters, and Kubernetes allows 63; rename the VolumeRestore to at most 53 characters`,
      conditions: [{ type: 'Ready', status: 'False', reason: 'NameTooLong' }],
    });
    await t.operator.settled();
    expect(restoreJobs(name)).toEqual([]);
    expect(t.server.get(CoreKinds.PersistentVolumeClaim, NS, `${name}-restored`)).toBeUndefined();
  });

  it("fails when the VolumeBackup's repository Secret is in another namespace", async () => {
    await t.client.create(VolumeBackupKind, {
      apiVersion: 'backups.k8s.neutral.com/v1',
      kind: 'VolumeBackup',
      metadata: { name: 'central', namespace: 'ops' },
      spec: { volumeClaimRef: { name: 'data' }, repository: REPOSITORY },
    });
    await createRestore('crossns', {
      sourceBackup: { volumeBackupRef: { name: 'central', namespace: 'ops' } },
      targetPVC: { size: '1Gi' },
    });
    await expectEventually(() => expect(statusOf('crossns').phase).toBe('Failed'));
    expect(statusOf('crossns')).toMatchObject({
      message:
        "the repository Secret ops/repo is outside the restore's namespace shop; pods can only use Secrets of their own namespace",
      conditions: [{ type: 'Ready', status: 'False', reason: 'SecretNamespaceMismatch' }],
    });
    expect(restoreJobs('crossns')).toEqual([]);
    expect(t.server.get(CoreKinds.PersistentVolumeClaim, NS, 'crossns-restored')).toBeUndefined();
  });

  it('fails a new claim without a size, and refuses to take over a claim it did not create', async () => {
    await createRestore('nosize', {
      sourceRepository: REPOSITORY,
      targetPVC: {},
    });
    await expectEventually(() =>
      expect(statusOf('nosize')).toMatchObject({
        phase: 'Failed',
        conditions: [{ reason: 'InvalidTarget' }],
      }),
    );
    expect(statusOf('nosize').message).toBe(
      'targetPVC.size is required when targetPVC.createNew is true',
    );

    t.server.put(CoreKinds.PersistentVolumeClaim, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'taken-restored', namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    await createRestore('taken', {
      sourceRepository: REPOSITORY,
      targetPVC: { size: '1Gi' },
    });
    await expectEventually(() => expect(statusOf('taken').phase).toBe('Failed'));
    expect(statusOf('taken')).toMatchObject({
      message:
        'claim taken-restored already exists and was not created by this restore; set targetPVC.createNew to false to restore into it',
      conditions: [{ reason: 'InvalidTarget' }],
    });
    expect(restoreJobs('taken')).toEqual([]);
  });

  it('restores into an existing claim as it is, waiting for it to exist', async () => {
    await createRestore('inplace', {
      sourceRepository: REPOSITORY,
      targetPVC: { createNew: false, name: 'data-existing' },
    });
    await expectEventually(() =>
      expect(statusOf('inplace')).toMatchObject({
        phase: 'Pending',
        message: 'claim shop/data-existing does not exist; the restore starts once it does',
        conditions: [{ type: 'Ready', status: 'False', reason: 'TargetClaimNotFound' }],
      }),
    );
    expect(restoreJobs('inplace')).toEqual([]);

    const claim = t.server.put(CoreKinds.PersistentVolumeClaim, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data-existing', namespace: NS, labels: { app: 'shop' } },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'standard',
        resources: { requests: { storage: '4Gi' } },
      },
      status: { phase: 'Bound', capacity: { storage: '5Gi' } },
    }) as KubeObject;
    await t.operator.advance({ seconds: 15 });
    await expectEventually(() => expect(restoreJobs('inplace')).toEqual(['inplace-restore-1']));
    await expectEventually(() =>
      expect(statusOf('inplace').targetInfo).toEqual({
        pvcName: 'data-existing',
        pvcNamespace: NS,
        storageClass: 'standard',
        size: '5Gi',
        created: false,
      }),
    );
    expect(jobOf('inplace-restore-1')!.spec!.template.spec.volumes).toContainEqual({
      name: 'restore',
      persistentVolumeClaim: { claimName: 'data-existing' },
    });
    const after = t.server.get<KubeObject>(CoreKinds.PersistentVolumeClaim, NS, 'data-existing')!;
    expect(after.metadata.resourceVersion).toBe(claim.metadata.resourceVersion);
    expect(t.server.get(CoreKinds.PersistentVolumeClaim, NS, 'inplace-restored')).toBeUndefined();
  });

  it('waits for a VolumeBackup that does not exist yet', async () => {
    await createRestore('later', {
      sourceBackup: { volumeBackupRef: { name: 'weekly' } },
      targetPVC: { size: '1Gi' },
    });
    await expectEventually(() =>
      expect(statusOf('later')).toMatchObject({
        phase: 'Pending',
        message: 'VolumeBackup shop/weekly does not exist',
        conditions: [{ reason: 'SourceNotFound' }],
      }),
    );
    await t.client.create(VolumeBackupKind, {
      apiVersion: 'backups.k8s.neutral.com/v1',
      kind: 'VolumeBackup',
      metadata: { name: 'weekly', namespace: NS },
      spec: { volumeClaimRef: { name: 'archive' }, host: 'archive-host', repository: REPOSITORY },
    });
    await t.operator.advance({ seconds: 30 });
    await expectEventually(() => expect(restoreJobs('later')).toEqual(['later-restore-1']));
    await expectEventually(() =>
      expect(statusOf('later').sourceInfo).toMatchObject({ host: 'archive-host' }),
    );
  });

  it('runs in the cluster its kubeconfig Secret names, and removes the Jobs there on deletion', async () => {
    const remote = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 });
    try {
      t.server.put(CoreKinds.Secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'edge-kubeconfig', namespace: NS },
        data: { kubeconfig: Buffer.from(remote.kubeconfigYaml()).toString('base64') },
      });
      await createRestore('edge', {
        sourceRepository: REPOSITORY,
        targetPVC: { size: '3Gi' },
        kubeconfig: { inCluster: false, secretRef: { name: 'edge-kubeconfig' } },
      });
      await expectEventually(() =>
        expect(remote.get(CoreKinds.Job, NS, 'edge-restore-1')).toBeDefined(),
      );
      const job = remote.get<RestoreJob>(CoreKinds.Job, NS, 'edge-restore-1')!;
      expect(job.metadata.ownerReferences).toBeUndefined();
      expect(remote.get(CoreKinds.PersistentVolumeClaim, NS, 'edge-restored')).toBeDefined();
      expect(restoreJobs('edge')).toEqual([]);
      expect(t.server.get(CoreKinds.PersistentVolumeClaim, NS, 'edge-restored')).toBeUndefined();

      // Nothing watches the remote cluster: its Job is polled.
      const started = iso(t.operator.clock.now());
      remote.put(CoreKinds.Job, { ...job, status: { active: 1, startTime: started } });
      await t.operator.advance({ seconds: 15 });
      await expectEventually(() =>
        expect(statusOf('edge')).toMatchObject({ phase: 'Running', startTime: started }),
      );

      await t.client.delete(VolumeRestoreKind, NS, 'edge');
      await expectEventually(() =>
        expect(t.server.get(VolumeRestoreKind, NS, 'edge')).toBeUndefined(),
      );
      expect(remote.get(CoreKinds.Job, NS, 'edge-restore-1')).toBeUndefined();
      expect(remote.get(CoreKinds.PersistentVolumeClaim, NS, 'edge-restored')).toBeDefined();
    } finally {
      await remote.stop();
    }
  });
});
