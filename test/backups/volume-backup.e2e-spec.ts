import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectEventually } from '@platform/testing';
import { type VolumeBackup, VolumeBackupKind } from '@platform/backups';
import { CoreKinds, KubeClient } from '@platform/kube';
import type { FakeKubeApiServer } from '@platform/testing';
import {
  type BackupOperator,
  childLabels,
  OPERATOR_CLOCK_START,
  RESYNC_PERIOD_SECONDS,
  RUN,
  startBackupApiServer,
  startBackupOperator,
  startCronJobRun,
  volumeBackupHelpers,
} from './support.js';

describe('VolumeBackup operator: children, steady state and deletion', () => {
  let server: FakeKubeApiServer;
  let operator: BackupOperator;
  let api: KubeClient;

  beforeAll(async () => {
    server = await startBackupApiServer();
    api = KubeClient.fromKubeConfig(server.kubeConfig());
    operator = await startBackupOperator(server);
  });

  afterAll(async () => {
    await operator?.close();
    await server?.stop();
  });

  const { create, backupOf, cronJob, claim, names, reconciled } = volumeBackupHelpers(() => ({
    server,
    api,
  }));

  const ownedBy = (backup: VolumeBackup) => [
    {
      apiVersion: 'backups.k8s.neutral.com/v1',
      kind: 'VolumeBackup',
      name: backup.metadata.name,
      uid: backup.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];

  describe('children', () => {
    it('creates the backup, check and restore-test CronJobs and the cache claim, and reports Pending', async () => {
      const created = await create('vb-create', 'app', {
        check: { enabled: true },
        restoreTest: { enabled: true, storage: { type: 'pvc', size: '2Gi' } },
      });
      const backup = await reconciled('vb-create', 'app');

      expect(names(server, CoreKinds.CronJob, 'vb-create')).toEqual([
        'app-backup',
        'app-check',
        'app-restore-test',
      ]);
      expect(names(server, CoreKinds.PersistentVolumeClaim, 'vb-create')).toEqual([
        'app-cache',
        'app-restore-test',
      ]);

      const backupJob = cronJob('vb-create', 'app-backup')!;
      expect(backupJob.metadata.labels).toEqual(childLabels('app', 'backup'));
      expect(backupJob.metadata.ownerReferences).toEqual(ownedBy(created));
      expect(backupJob.spec).toMatchObject({
        schedule: '15 1 * * *',
        suspend: false,
        concurrencyPolicy: 'Forbid',
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 3,
        jobTemplate: {
          metadata: { labels: childLabels('app', 'backup') },
          spec: {
            backoffLimit: 2,
            template: {
              spec: {
                restartPolicy: 'Never',
                volumes: [
                  {
                    name: 'data',
                    persistentVolumeClaim: { claimName: 'app-data', readOnly: true },
                  },
                  { name: 'cache', persistentVolumeClaim: { claimName: 'app-cache' } },
                  { name: 'tmp', emptyDir: {} },
                ],
              },
            },
          },
        },
      });
      const [container] = backupJob.spec!.jobTemplate.spec.template.spec.containers;
      expect(container).toMatchObject({
        name: 'restic',
        image: 'registry.neutral.com/public/restic:0.18.1',
        imagePullPolicy: 'Always',
        envFrom: [{ secretRef: { name: 'restic-credentials' } }],
        terminationMessagePolicy: 'FallbackToLogsOnError',
        resources: {
          requests: { cpu: '200m', memory: '256Mi' },
          limits: { cpu: '1000m', memory: '1Gi' },
        },
      });
      expect((container.env as unknown[])[0]).toEqual({
        name: 'RESTIC_REPOSITORY',
        value: 's3:https://objects.example.test/backups/app',
      });

      expect(cronJob('vb-create', 'app-check')!.spec).toMatchObject({
        schedule: '0 4 * * *',
        suspend: false,
      });
      expect(cronJob('vb-create', 'app-check')!.metadata.labels).toEqual(
        childLabels('app', 'check'),
      );
      expect(cronJob('vb-create', 'app-restore-test')!.spec).toMatchObject({
        schedule: '0 5 * * *',
      });

      const cache = claim('vb-create', 'app-cache')!;
      expect(cache.metadata.labels).toEqual(childLabels('app'));
      expect(cache.metadata.ownerReferences).toEqual(ownedBy(created));
      expect(cache.spec).toEqual({
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '5Gi' } },
      });
      expect(claim('vb-create', 'app-restore-test')!.spec).toEqual({
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '2Gi' } },
      });

      expect(backup.metadata.finalizers).toEqual(['backups.k8s.neutral.com/cleanup']);
      expect(backup.status).toEqual({
        observedGeneration: 1,
        phase: 'Pending',
        message: 'Waiting for the first backup (schedule "15 1 * * *")',
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
            status: 'Unknown',
            reason: 'NoBackupYet',
            message: 'No backup has finished yet',
            lastTransitionTime: OPERATOR_CLOCK_START,
          },
        ],
      });
    });

    it('follows changes: schedule, suspension, check and cache switched off', async () => {
      await create('vb-edit', 'app', { check: { enabled: true } });
      await reconciled('vb-edit', 'app');
      expect(names(server, CoreKinds.CronJob, 'vb-edit')).toEqual(['app-backup', 'app-check']);

      await api.mergePatch(VolumeBackupKind, 'vb-edit', 'app', {
        spec: { schedule: '30 2 * * 1-5' },
      });
      await expectEventually(() =>
        expect(cronJob('vb-edit', 'app-backup')!.spec!.schedule).toBe('30 2 * * 1-5'),
      );

      await api.mergePatch(VolumeBackupKind, 'vb-edit', 'app', { spec: { suspended: true } });
      await expectEventually(() => {
        expect(cronJob('vb-edit', 'app-backup')!.spec!.suspend).toBe(true);
        expect(cronJob('vb-edit', 'app-check')!.spec!.suspend).toBe(true);
      });
      const suspended = await reconciled('vb-edit', 'app');
      expect(suspended.status).toMatchObject({
        phase: 'Pending',
        message: 'Backups are suspended',
      });
      expect(suspended.status!.conditions![0]).toMatchObject({
        status: 'True',
        reason: 'Suspended',
      });

      await api.mergePatch(VolumeBackupKind, 'vb-edit', 'app', {
        spec: { check: { enabled: false }, cache: { enabled: false } },
      });
      await expectEventually(() => {
        expect(names(server, CoreKinds.CronJob, 'vb-edit')).toEqual(['app-backup']);
        expect(names(server, CoreKinds.PersistentVolumeClaim, 'vb-edit')).toEqual([]);
      });
      const backupJob = cronJob('vb-edit', 'app-backup')!;
      expect(backupJob.spec!.jobTemplate.spec.template.spec).toMatchObject({
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'app-data', readOnly: true } },
          { name: 'tmp', emptyDir: {} },
        ],
      });
    });

    it('refuses a repository secret of another namespace without creating anything', async () => {
      await create('vb-invalid', 'app', {
        repository: {
          type: 's3',
          url: 's3:https://objects.example.test/backups/app',
          secretRef: { name: 'restic-credentials', namespace: 'vault' },
        },
      });
      const backup = await reconciled('vb-invalid', 'app');
      const message =
        'repository.secretRef names namespace "vault", but the backup pods run in "vb-invalid" and can only read Secrets there';
      expect(backup.status).toEqual({
        observedGeneration: 1,
        phase: 'Failed',
        message,
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'SecretNamespaceMismatch',
            message,
            lastTransitionTime: OPERATOR_CLOCK_START,
          },
        ],
      });
      await operator.settled();
      expect(server.list(CoreKinds.CronJob, 'vb-invalid')).toEqual([]);
      expect(server.list(CoreKinds.PersistentVolumeClaim, 'vb-invalid')).toEqual([]);
      expect(server.mutations({ kind: 'CronJob', namespace: 'vb-invalid' })).toBe(0);
    });

    it('refuses a schedule cron cannot read', async () => {
      await create('vb-invalid', 'bad-schedule', { schedule: '0 25 * * *' });
      const backup = await reconciled('vb-invalid', 'bad-schedule');
      expect(backup.status).toMatchObject({
        phase: 'Failed',
        message: 'schedule "0 25 * * *" is not a valid cron schedule: hour: 25 is outside 0-23',
        conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidSchedule' }],
      });
      expect(cronJob('vb-invalid', 'bad-schedule-backup')).toBeUndefined();
    });

    it('refuses a name its restore-test CronJob cannot carry, creating none of its CronJobs', async () => {
      const name = 'orders-database-primary-volume-snapshots';
      expect(name).toHaveLength(40);
      await create('vb-invalid', name, { restoreTest: { enabled: true } });
      const backup = await reconciled('vb-invalid', name);
      expect(backup.status).toMatchObject({
        phase: 'Failed',
        message: `the name "${name}" is too long: its CronJob "${name}-restore-test" would have 53 characters, and Kubernetes allows 52; rename the VolumeBackup to at most 39 characters`,
        conditions: [{ type: 'Ready', status: 'False', reason: 'NameTooLong' }],
      });
      await operator.settled();
      expect(cronJob('vb-invalid', `${name}-backup`)).toBeUndefined();
      expect(server.mutations({ kind: 'CronJob', namespace: 'vb-invalid' })).toBe(0);
    });
  });

  it('writes nothing in steady state, through a resync and a relist', async () => {
    await create('vb-steady', 'app', { check: { enabled: true }, restoreTest: { enabled: true } });
    await reconciled('vb-steady', 'app');
    await operator.settled();
    const reconciles = async () => {
      const line = (await operator.metrics())
        .split('\n')
        .find((l) =>
          l.startsWith('operator_reconcile_total{kind="VolumeBackup",result="success"}'),
        );
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const writesBefore = server.mutations();
    const reconcilesBefore = await reconciles();

    await operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    server.expireWatches();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await operator.settled();

    const backups = server.list(VolumeBackupKind).length;
    expect(await reconciles()).toBeGreaterThanOrEqual(reconcilesBefore + backups);
    expect(server.mutations()).toBe(writesBefore);
  });

  it('cleans up through its finalizer when deleted', async () => {
    await create('vb-delete', 'app', { check: { enabled: true } });
    await reconciled('vb-delete', 'app');
    expect(names(server, CoreKinds.CronJob, 'vb-delete')).toEqual(['app-backup', 'app-check']);
    startCronJobRun(server, 'vb-delete', 'app-backup', {
      job: 'app-backup-1',
      startTime: RUN.started,
    });

    await api.delete(VolumeBackupKind, 'vb-delete', 'app');
    await expectEventually(() => expect(backupOf('vb-delete', 'app')).toBeUndefined());
    expect(server.list(CoreKinds.CronJob, 'vb-delete')).toEqual([]);
    expect(server.list(CoreKinds.PersistentVolumeClaim, 'vb-delete')).toEqual([]);
    expect(server.list(CoreKinds.Job, 'vb-delete')).toEqual([]);
    // Deleted by the finalizer, not only by garbage collection.
    expect(
      server.requests
        .filter((r) => r.method === 'DELETE' && r.kind === 'CronJob' && r.namespace === 'vb-delete')
        .map((r) => r.name)
        .sort(),
    ).toEqual(['app-backup', 'app-check']);
  });
});
