import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { VolumeBackupKind } from '@platform/backups';
import { CoreKinds, KubeClient, type KubeObject } from '@platform/kube';
import { closedLocalPort, FakeKubeApiServer, expectEventually } from '@platform/testing';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import {
  type BackupOperator,
  childLabels,
  createSigningSecret,
  finishCronJobRun,
  resticSummaryLine,
  RUN,
  SIGNING_SECRET,
  startBackupApiServer,
  startBackupOperator,
  startCronJobRun,
  volumeBackupHelpers,
} from './support.js';

describe('VolumeBackup operator: backups in the cluster of a kubeconfig secret', () => {
  let server: FakeKubeApiServer;
  let operator: BackupOperator;
  let api: KubeClient;
  let receiver: WebhookReceiver;
  let remote: FakeKubeApiServer;

  beforeAll(async () => {
    server = await startBackupApiServer();
    api = KubeClient.fromKubeConfig(server.kubeConfig());
    remote = await FakeKubeApiServer.start();
    receiver = await WebhookReceiver.start();
    receiver.secrets = [SIGNING_SECRET];
    operator = await startBackupOperator(server);
  });

  afterAll(async () => {
    await operator?.close();
    await receiver?.close();
    await remote?.stop();
    await server?.stop();
  });

  const { create, backupOf, cronJob, claim, names, reconciled } = volumeBackupHelpers(() => ({
    server,
    api,
  }));

  it('reconciles into the cluster of the kubeconfig secret, polls its Jobs and cleans up there', async () => {
    await api.create(CoreKinds.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'edge-cluster', namespace: 'vb-remote' },
      data: { kubeconfig: Buffer.from(remote.kubeconfigYaml()).toString('base64') },
    } as KubeObject);
    // The signing Secret is read where the VolumeBackup lives, not in the remote cluster.
    await createSigningSecret(api, 'vb-remote');
    await create('vb-remote', 'app', {
      kubeconfig: { inCluster: false, secretRef: { name: 'edge-cluster' } },
      webhooks: { success: receiver.url('/hooks/remote'), secretRef: { name: 'backup-hooks' } },
    });
    const backup = await reconciled('vb-remote', 'app');
    expect(backup.status).toMatchObject({ phase: 'Pending' });

    expect(names(remote, CoreKinds.CronJob, 'vb-remote')).toEqual(['app-backup']);
    expect(names(remote, CoreKinds.PersistentVolumeClaim, 'vb-remote')).toEqual(['app-cache']);
    expect(server.list(CoreKinds.CronJob, 'vb-remote')).toEqual([]);
    const remoteCronJob = cronJob('vb-remote', 'app-backup', remote)!;
    expect(remoteCronJob.metadata.ownerReferences).toBeUndefined();
    expect(remoteCronJob.metadata.labels).toEqual(childLabels('app', 'backup'));
    expect(claim('vb-remote', 'app-cache', remote)!.metadata.ownerReferences).toBeUndefined();

    await operator.settled();
    const run = { job: 'app-backup-28579870', startTime: RUN.started };
    startCronJobRun(remote, 'vb-remote', 'app-backup', run);
    finishCronJobRun(remote, 'vb-remote', run, {
      succeeded: true,
      completionTime: RUN.completed,
      terminationMessage: resticSummaryLine(RUN.snapshot, RUN.processedBytes),
    });
    await operator.settled();
    // Nothing watches the other cluster: its Jobs are seen at the next poll.
    expect(backupOf('vb-remote', 'app')!.status!.phase).toBe('Pending');
    await operator.advance({ seconds: 61 });
    await expectEventually(() =>
      expect(backupOf('vb-remote', 'app')!.status).toMatchObject({
        phase: 'Succeeded',
        lastBackup: RUN.completed,
        lastSnapshot: RUN.snapshot,
        volumeSize: '1.5Gi',
      }),
    );
    const delivered = await receiver.received.waitFor((r) => r.json.job === run.job);
    expect(delivered.json).toMatchObject({ event: 'backup.succeeded', snapshotId: RUN.snapshot });

    // Steady in the other cluster too: a poll writes nothing there.
    await operator.settled();
    const remoteWrites = remote.mutations();
    await operator.advance({ seconds: 61 });
    expect(remote.mutations()).toBe(remoteWrites);

    const series = `volume_backup_last_success_timestamp_seconds{namespace="vb-remote",name="app"} ${Date.parse(RUN.completed) / 1000}`;
    expect(await operator.metrics()).toContain(series);

    await api.delete(VolumeBackupKind, 'vb-remote', 'app');
    await expectEventually(() => expect(backupOf('vb-remote', 'app')).toBeUndefined());
    expect(remote.list(CoreKinds.CronJob, 'vb-remote')).toEqual([]);
    expect(remote.list(CoreKinds.PersistentVolumeClaim, 'vb-remote')).toEqual([]);
    expect(await operator.metrics()).not.toContain('namespace="vb-remote",name="app"');
  });

  it('follows a rotated kubeconfig secret to the cluster it names now', async () => {
    const next = await FakeKubeApiServer.start();
    try {
      const secret = (cluster: FakeKubeApiServer) => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'rotating', namespace: 'vb-rotate' },
        data: { kubeconfig: Buffer.from(cluster.kubeconfigYaml()).toString('base64') },
      });
      await api.create(CoreKinds.Secret, secret(remote) as KubeObject);
      await create('vb-rotate', 'app', {
        kubeconfig: { inCluster: false, secretRef: { name: 'rotating' } },
      });
      await expectEventually(() =>
        expect(names(remote, CoreKinds.CronJob, 'vb-rotate')).toEqual(['app-backup']),
      );
      await operator.settled();
      await api.replace(CoreKinds.Secret, secret(next) as KubeObject);
      await operator.advance({ seconds: 61 });
      await expectEventually(() =>
        expect(names(next, CoreKinds.CronJob, 'vb-rotate')).toEqual(['app-backup']),
      );
    } finally {
      await next.stop();
    }
  });

  it('reports a cluster that does not answer', async () => {
    const unreachable = remote
      .kubeconfigYaml()
      .replace(remote.url, `http://127.0.0.1:${await closedLocalPort()}`);
    await api.create(CoreKinds.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'gone-cluster', namespace: 'vb-remote' },
      data: { kubeconfig: Buffer.from(unreachable).toString('base64') },
    } as KubeObject);
    await create('vb-remote', 'unreachable', {
      kubeconfig: { inCluster: false, secretRef: { name: 'gone-cluster' } },
    });
    const backup = await reconciled('vb-remote', 'unreachable');
    expect(backup.status).toMatchObject({
      phase: 'Failed',
      conditions: [{ type: 'Ready', status: 'False', reason: 'RemoteClusterUnavailable' }],
    });
    expect(backup.status!.message).toMatch(
      /^the cluster of the kubeconfig Secret could not be read: /,
    );
  });

  it('reports a missing kubeconfig secret', async () => {
    await create('vb-remote', 'lost', {
      kubeconfig: { inCluster: false, secretRef: { name: 'nowhere' } },
    });
    const backup = await reconciled('vb-remote', 'lost');
    expect(backup.status).toMatchObject({
      phase: 'Failed',
      message: 'the kubeconfig Secret vb-remote/nowhere does not exist',
      conditions: [{ type: 'Ready', status: 'False', reason: 'KubeconfigUnavailable' }],
    });
  });
});
