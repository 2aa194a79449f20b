import { describe, expect, it } from '@jest/globals';
import { withS3BackupDefaults } from '../api/s3-backup-defaults.js';
import type { S3Backup, S3BackupSpec } from '../api/types.js';
import { backupScript } from './restic.js';
import { rcloneSource, renderS3Backup } from './s3-backup.js';

const ENV = { BACKUP_IMAGE_REPOSITORY: 'registry.example/restic' };
const repository = {
  type: 's3' as const,
  url: 's3:https://backup.example.com/repos/media',
  secretRef: { name: 'restic-s3' },
};
const source = {
  bucket: 'media',
  endpoint: 'https://objects.example.com',
  credentialsSecretRef: { name: 'media-reader' },
};
const metadata = { name: 'media', namespace: 'shop', uid: 'c3a1-uid', generation: 2 };
const ownerReferences = [
  {
    apiVersion: 'backups.k8s.neutral.com/v1',
    kind: 'S3Backup',
    name: 'media',
    uid: 'c3a1-uid',
    controller: true,
    blockOwnerDeletion: true,
  },
];
const labels = (jobType?: string) => ({
  'app.kubernetes.io/managed-by': 'backup-operator',
  'backups.k8s.neutral.com/s3-backup': 'media',
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

const s3Backup = (spec: Partial<S3BackupSpec> = {}): S3Backup => ({
  apiVersion: 'backups.k8s.neutral.com/v1',
  kind: 'S3Backup',
  metadata,
  spec: { source, repository, ...spec },
});
const render = (backup: S3Backup, ownerReferencesToo = true) =>
  renderS3Backup(backup, withS3BackupDefaults(backup.spec!, 'shop', ENV), {
    ownerReferences: ownerReferencesToo,
  });

describe('renderS3Backup', () => {
  it('a minimal S3Backup: one CronJob syncing the bucket into the cache claim, then restic', () => {
    const { cronJobs, persistentVolumeClaims } = render(s3Backup());
    expect(persistentVolumeClaims).toEqual([
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'media-cache', namespace: 'shop', labels: labels(), ownerReferences },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
      },
    ]);
    expect(cronJobs).toEqual([
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: {
          name: 'media-backup',
          namespace: 'shop',
          labels: labels('backup'),
          ownerReferences,
        },
        spec: {
          schedule: '0 3 * * *',
          suspend: false,
          concurrencyPolicy: 'Forbid',
          successfulJobsHistoryLimit: 3,
          failedJobsHistoryLimit: 3,
          jobTemplate: {
            metadata: { labels: labels('backup') },
            spec: {
              backoffLimit: 2,
              template: {
                metadata: { labels: labels('backup') },
                spec: {
                  restartPolicy: 'Never',
                  automountServiceAccountToken: false,
                  securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
                  initContainers: [
                    {
                      name: 'sync',
                      image: 'rclone/rclone:1.75.1',
                      imagePullPolicy: 'IfNotPresent',
                      command: ['rclone', 'sync', ':s3:media', '/data'],
                      env: [
                        { name: 'RCLONE_S3_PROVIDER', value: 'Other' },
                        { name: 'RCLONE_S3_ENDPOINT', value: 'https://objects.example.com' },
                        { name: 'RCLONE_S3_FORCE_PATH_STYLE', value: 'true' },
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
                  ],
                  containers: [
                    {
                      name: 'restic',
                      image: 'registry.example/restic:0.18.1',
                      imagePullPolicy: 'Always',
                      command: [
                        'sh',
                        '-c',
                        backupScript({
                          host: 'shop-media',
                          paths: ['/'],
                          exclude: [],
                          noCache: false,
                        }),
                      ],
                      env: [
                        { name: 'RESTIC_REPOSITORY', value: repository.url },
                        { name: 'RESTIC_CACHE_DIR', value: '/cache' },
                        { name: 'RESTIC_PROGRESS_FPS', value: '0.2' },
                      ],
                      envFrom: [{ secretRef: { name: 'restic-s3' } }],
                      resources,
                      volumeMounts: [
                        { name: 'cache', mountPath: '/data', readOnly: true, subPath: 'data' },
                        { name: 'cache', mountPath: '/cache', subPath: 'restic' },
                        { name: 'tmp', mountPath: '/tmp' },
                      ],
                      terminationMessagePolicy: 'FallbackToLogsOnError',
                      securityContext,
                    },
                  ],
                  volumes: [
                    { name: 'cache', persistentVolumeClaim: { claimName: 'media-cache' } },
                    { name: 'tmp', emptyDir: {} },
                  ],
                },
              },
            },
          },
        },
      },
    ]);
  });

  it('every field: prefix, region, host, retention, images, schedule, history and scheduling', () => {
    const tolerations = [
      { key: 'backup', operator: 'Exists' as const, effect: 'NoSchedule' as const },
    ];
    const affinity = { nodeAffinity: {} };
    const { cronJobs, persistentVolumeClaims } = render(
      s3Backup({
        source: { ...source, prefix: '/uploads/2024/', region: 'eu-west-1', forcePathStyle: false },
        schedule: '45 1 * * 0',
        host: 'media-primary',
        retention: { keepDaily: 7, keepMonthly: 6 },
        cache: {
          enabled: true,
          size: '50Gi',
          storageClass: 'bulk',
          accessMode: 'ReadWriteOncePod',
        },
        resources: { limits: { memory: '4Gi' } },
        image: { tag: '0.18.0', pullPolicy: 'IfNotPresent' },
        syncImage: { repository: 'mirror.example/rclone', tag: '1.74.0', pullPolicy: 'Always' },
        jobConfig: { keepSuccessfulJobs: 1, keepFailedJobs: 5 },
        suspended: true,
        nodeSelector: { pool: 'backup' },
        tolerations,
        affinity,
      }),
      false,
    );
    expect(persistentVolumeClaims[0]).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'media-cache', namespace: 'shop', labels: labels() },
      spec: {
        accessModes: ['ReadWriteOncePod'],
        resources: { requests: { storage: '50Gi' } },
        storageClassName: 'bulk',
      },
    });
    const cron = cronJobs[0];
    expect(cron.metadata.ownerReferences).toBeUndefined();
    expect(cron.spec).toMatchObject({
      schedule: '45 1 * * 0',
      suspend: true,
      successfulJobsHistoryLimit: 1,
      failedJobsHistoryLimit: 5,
    });
    const pod = cron.spec!.jobTemplate.spec!.template.spec!;
    const sync = pod.initContainers![0];
    expect(sync.image).toBe('mirror.example/rclone:1.74.0');
    expect(sync.imagePullPolicy).toBe('Always');
    expect(sync.command).toEqual(['rclone', 'sync', ':s3:media/uploads/2024', '/data']);
    expect(sync.env!.slice(0, 4)).toEqual([
      { name: 'RCLONE_S3_PROVIDER', value: 'Other' },
      { name: 'RCLONE_S3_ENDPOINT', value: 'https://objects.example.com' },
      { name: 'RCLONE_S3_FORCE_PATH_STYLE', value: 'false' },
      { name: 'RCLONE_S3_REGION', value: 'eu-west-1' },
    ]);
    expect(sync.resources).toEqual({ ...resources, limits: { memory: '4Gi', cpu: '1000m' } });
    const restic = pod.containers[0];
    expect(restic.image).toBe('registry.example/restic:0.18.0');
    expect(restic.command![2]).toBe(
      backupScript({
        host: 'media-primary',
        paths: ['/'],
        exclude: [],
        retention: { keepDaily: 7, keepMonthly: 6 },
        noCache: false,
      }),
    );
    expect(pod.nodeSelector).toEqual({ pool: 'backup' });
    expect(pod.tolerations).toEqual(tolerations);
    expect(pod.affinity).toEqual(affinity);
  });

  it('without the cache: the copy is an emptyDir of the pod, restic runs without a cache, no claim', () => {
    const { cronJobs, persistentVolumeClaims } = render(s3Backup({ cache: { enabled: false } }));
    expect(persistentVolumeClaims).toEqual([]);
    const pod = cronJobs[0].spec!.jobTemplate.spec!.template.spec!;
    expect(pod.volumes).toEqual([
      { name: 'cache', emptyDir: {} },
      { name: 'tmp', emptyDir: {} },
    ]);
    const restic = pod.containers[0];
    expect(restic.env).toEqual([
      { name: 'RESTIC_REPOSITORY', value: repository.url },
      { name: 'RESTIC_PROGRESS_FPS', value: '0.2' },
    ]);
    expect(restic.volumeMounts).toEqual([
      { name: 'cache', mountPath: '/data', readOnly: true, subPath: 'data' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(restic.command![2]).toBe(
      backupScript({ host: 'shop-media', paths: ['/'], exclude: [], noCache: true }),
    );
  });

  it('without credentials the bucket is read anonymously: no key variables at all', () => {
    const { cronJobs } = render(
      s3Backup({ source: { bucket: 'public', endpoint: 'http://s3.local' } }),
    );
    const sync = cronJobs[0].spec!.jobTemplate.spec!.template.spec!.initContainers![0];
    expect(sync.env!.map((variable) => variable.name)).toEqual([
      'RCLONE_S3_PROVIDER',
      'RCLONE_S3_ENDPOINT',
      'RCLONE_S3_FORCE_PATH_STYLE',
      'RCLONE_CONFIG',
      'RCLONE_CACHE_DIR',
    ]);
  });
});

describe('rcloneSource', () => {
  it.each([
    [{ bucket: 'media' }, ':s3:media'],
    [{ bucket: 'media', prefix: '' }, ':s3:media'],
    [{ bucket: 'media', prefix: 'a/b' }, ':s3:media/a/b'],
    [{ bucket: 'media', prefix: '//a/b//' }, ':s3:media/a/b'],
  ])('%j is %s', (source, expected) => {
    expect(rcloneSource(source)).toBe(expected);
  });
});
