import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type S3Backup, S3BackupKind } from '@platform/backups';
import { CoreKinds, KubeApiError, KubeClient } from '@platform/kube';
import { expectEventually, type FakeKubeApiServer } from '@platform/testing';
import { BUCKET_SOURCE, s3BackupHelpers } from './s3-backup-support.js';
import {
  type BackupOperator,
  type CronJob,
  OPERATOR_CLOCK_START,
  RUN,
  startBackupApiServer,
  startBackupOperator,
  startCronJobRun,
} from './support.js';

const labels = (name: string, jobType?: string) => ({
  'app.kubernetes.io/managed-by': 'backup-operator',
  'backups.k8s.neutral.com/s3-backup': name,
  ...(jobType ? { 'backups.k8s.neutral.com/job-type': jobType } : {}),
});
const securityContext = {
  runAsUser: 0,
  runAsGroup: 0,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};
const resources = {
  requests: { memory: '256Mi', cpu: '200m' },
  limits: { memory: '1Gi', cpu: '1000m' },
};
const ready = (reason: string, message: string) => ({
  type: 'Ready',
  status: 'True',
  reason,
  message,
  lastTransitionTime: OPERATOR_CLOCK_START,
});
const noBackupYet = {
  type: 'BackupSucceeded',
  status: 'Unknown',
  reason: 'NoBackupYet',
  message: 'No backup has finished yet',
  lastTransitionTime: OPERATOR_CLOCK_START,
};

describe('S3Backup operator: CronJob, validation, suspension and deletion', () => {
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

  const { create, backupOf, reconciled } = s3BackupHelpers(() => ({ server, api }));
  const cronJob = (namespace: string, name: string) =>
    server.get<CronJob>(CoreKinds.CronJob, namespace, name);

  it('renders the CronJob: rclone copies the bucket with the Secret by reference, then restic backs it up', async () => {
    const created = await create('s3-create', 'media', {
      source: { ...BUCKET_SOURCE, prefix: 'uploads', region: 'eu-1' },
    });
    const backup = await reconciled('s3-create', 'media');
    expect(backup.status).toEqual({
      observedGeneration: 1,
      phase: 'Pending',
      message: 'Waiting for the first backup (schedule "20 2 * * *")',
      conditions: [ready('Scheduled', 'The backup CronJobs are in place'), noBackupYet],
    });
    const ownerReferences = [
      {
        apiVersion: 'backups.k8s.neutral.com/v1',
        kind: 'S3Backup',
        name: 'media',
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
    expect(server.get(CoreKinds.PersistentVolumeClaim, 's3-create', 'media-cache')).toMatchObject({
      metadata: { labels: labels('media'), ownerReferences },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
    });
    const cron = cronJob('s3-create', 'media-backup')!;
    expect(cron.metadata).toMatchObject({ labels: labels('media', 'backup'), ownerReferences });
    expect(cron.spec).toMatchObject({
      schedule: '20 2 * * *',
      suspend: false,
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
    });
    const pod = cron.spec!.jobTemplate.spec.template.spec as {
      initContainers: Array<Record<string, unknown>>;
      containers: Array<Record<string, unknown>>;
      volumes: unknown[];
    };
    expect(pod.initContainers).toEqual([
      {
        name: 'sync',
        image: 'rclone/rclone:1.75.1',
        imagePullPolicy: 'IfNotPresent',
        command: ['rclone', 'sync', ':s3:media/uploads', '/data'],
        env: [
          { name: 'RCLONE_S3_PROVIDER', value: 'Other' },
          { name: 'RCLONE_S3_ENDPOINT', value: 'https://objects.example.test' },
          { name: 'RCLONE_S3_FORCE_PATH_STYLE', value: 'true' },
          { name: 'RCLONE_S3_REGION', value: 'eu-1' },
          {
            name: 'RCLONE_S3_ACCESS_KEY_ID',
            valueFrom: { secretKeyRef: { name: 'media-reader', key: 'accessKey' } },
          },
          {
            name: 'RCLONE_S3_SECRET_ACCESS_KEY',
            valueFrom: { secretKeyRef: { name: 'media-reader', key: 'secretKey' } },
          },
          { name: 'RCLONE_CONFIG', value: '/tmp/rclone.conf' },
          { name: 'RCLONE_CACHE_DIR', value: '/tmp/rclone-cache' },
        ],
        resources,
        volumeMounts: [
          { name: 'cache', mountPath: '/data', subPath: 'data' },
          { name: 'tmp', mountPath: '/tmp' },
        ],
        terminationMessagePolicy: 'FallbackToLogsOnError',
        securityContext,
      },
    ]);
    expect(pod.containers).toHaveLength(1);
    expect(pod.containers[0]).toMatchObject({
      name: 'restic',
      image: 'registry.neutral.com/public/restic:0.18.1',
      env: [
        { name: 'RESTIC_REPOSITORY', value: 's3:https://backups.example.test/repos/media' },
        { name: 'RESTIC_CACHE_DIR', value: '/cache' },
        { name: 'RESTIC_PROGRESS_FPS', value: '0.2' },
      ],
      envFrom: [{ secretRef: { name: 'restic-credentials' } }],
      volumeMounts: [
        { name: 'cache', mountPath: '/data', readOnly: true, subPath: 'data' },
        { name: 'cache', mountPath: '/cache', subPath: 'restic' },
        { name: 'tmp', mountPath: '/tmp' },
      ],
      securityContext,
    });
    const script = (pod.containers[0].command as string[])[2];
    expect(script).toContain('--host s3-create-media');
    expect(pod.volumes).toEqual([
      { name: 'cache', persistentVolumeClaim: { claimName: 'media-cache' } },
      { name: 'tmp', emptyDir: {} },
    ]);
    // The credentials stay in their Secret: nothing was copied anywhere.
    expect(server.list(CoreKinds.Secret, 's3-create')).toEqual([]);
  });

  it('suspended: the CronJob is suspended and the status says so; resuming follows', async () => {
    await create('s3-suspend', 'media', { suspended: true, cache: { enabled: false } });
    const backup = await reconciled('s3-suspend', 'media');
    expect(cronJob('s3-suspend', 'media-backup')!.spec!.suspend).toBe(true);
    expect(server.list(CoreKinds.PersistentVolumeClaim, 's3-suspend')).toEqual([]);
    expect(backup.status).toEqual({
      observedGeneration: 1,
      phase: 'Pending',
      message: 'Backups are suspended',
      conditions: [
        ready('Suspended', 'The backup CronJobs are in place and suspended'),
        noBackupYet,
      ],
    });

    await api.mergePatch<S3Backup>(S3BackupKind, 's3-suspend', 'media', {
      spec: { suspended: false },
    });
    await expectEventually(() =>
      expect(backupOf('s3-suspend', 'media')!.status).toMatchObject({
        observedGeneration: 2,
        message: 'Waiting for the first backup (schedule "20 2 * * *")',
        conditions: [{ type: 'Ready', reason: 'Scheduled' }, { type: 'BackupSucceeded' }],
      }),
    );
    expect(cronJob('s3-suspend', 'media-backup')!.spec!.suspend).toBe(false);
  });

  it.each([
    [
      'a local repository',
      { repository: { type: 'local', url: '/srv', secretRef: { name: 'r' } } },
      'spec.repository.type',
    ],
    [
      'an sftp repository',
      { repository: { type: 'sftp', url: 'sftp:h:/r', secretRef: { name: 'r' } } },
      'spec.repository.type',
    ],
    [
      'a source without its bucket',
      { source: { endpoint: 'https://objects.example.test' } },
      'spec.source.bucket',
    ],
    [
      'an endpoint that is no URL',
      { source: { bucket: 'media', endpoint: 'objects.example.test' } },
      'spec.source.endpoint',
    ],
    [
      'webhooks without their signing Secret',
      { webhooks: { success: 'https://hooks.example.test/ok' } },
      'spec.webhooks.secretRef',
    ],
  ])('the API server refuses %s with 422', async (_case, overrides, field) => {
    const error = await create('s3-refused', 'media', overrides as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).status).toBe(422);
    expect((error as KubeApiError).message).toContain(field);
    expect(backupOf('s3-refused', 'media')).toBeUndefined();
  });

  it('refuses a credentials Secret of another namespace without creating anything', async () => {
    await create('s3-invalid', 'media', {
      source: {
        ...BUCKET_SOURCE,
        credentialsSecretRef: { name: 'media-reader', namespace: 'vault' },
      },
    });
    const backup = await reconciled('s3-invalid', 'media');
    const message =
      'source.credentialsSecretRef names namespace "vault", but the backup pods run in "s3-invalid" and can only read Secrets there';
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
    expect(server.list(CoreKinds.CronJob, 's3-invalid')).toEqual([]);
    expect(server.list(CoreKinds.PersistentVolumeClaim, 's3-invalid')).toEqual([]);
  });

  it('refuses a schedule cron cannot read, and a name its CronJob cannot carry', async () => {
    await create('s3-invalid', 'bad-schedule', { schedule: '0 25 * * *' });
    expect((await reconciled('s3-invalid', 'bad-schedule')).status).toMatchObject({
      phase: 'Failed',
      message: 'schedule "0 25 * * *" is not a valid cron schedule: hour: 25 is outside 0-23',
      conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidSchedule' }],
    });
    const name = 'm'.repeat(46);
    await create('s3-invalid', name);
    expect((await reconciled('s3-invalid', name)).status).toMatchObject({
      phase: 'Failed',
      message: `the name "${name}" is too long: its CronJob "${name}-backup" would have 53 characters, and Kubernetes allows 52; rename the S3Backup to at most 45 characters`,
      conditions: [{ type: 'Ready', status: 'False', reason: 'NameTooLong' }],
    });
    expect(server.list(CoreKinds.CronJob, 's3-invalid')).toEqual([]);
  });

  it('cleans up through its finalizer when deleted', async () => {
    await create('s3-delete', 'media');
    await reconciled('s3-delete', 'media');
    startCronJobRun(server, 's3-delete', 'media-backup', {
      job: 'media-backup-1',
      startTime: RUN.started,
    });

    await api.delete(S3BackupKind, 's3-delete', 'media');
    await expectEventually(() => expect(backupOf('s3-delete', 'media')).toBeUndefined());
    expect(server.list(CoreKinds.CronJob, 's3-delete')).toEqual([]);
    expect(server.list(CoreKinds.PersistentVolumeClaim, 's3-delete')).toEqual([]);
    expect(server.list(CoreKinds.Job, 's3-delete')).toEqual([]);
    // Deleted by the finalizer, not only by garbage collection.
    expect(
      server.requests
        .filter((r) => r.method === 'DELETE' && r.namespace === 's3-delete')
        .map((r) => `${r.kind}/${r.name}`)
        .sort(),
    ).toEqual(['CronJob/media-backup', 'PersistentVolumeClaim/media-cache', 'S3Backup/media']);
  });
});
