import type { V1Container, V1EnvVar } from '@kubernetes/client-node';
import type { DefaultedS3BackupSpec } from '../api/s3-backup-defaults.js';
import type { S3Backup, S3SourceSpec } from '../api/types.js';
import {
  BackupLabels,
  containerResources,
  type CronJob,
  type JobType,
  MANAGED_BY,
  type PersistentVolumeClaim,
  type PodVolume,
  PROGRESS_FPS,
  type RenderOptions,
  resticPodTemplate,
  TMP_VOLUME,
  volumeMounts,
} from './pod.js';
import { backupScript, POD_LAYOUT } from './restic.js';
import { scheduledJob, volumeClaim } from './scheduled-job.js';
import { BACKUP_BACKOFF_LIMIT } from './volume-backup.js';

/** The init container that copies the bucket into the pod before restic backs it up. */
export const SYNC_CONTAINER = 'sync';

/** The Secret keys `source.credentialsSecretRef` must hold. */
export const S3_CREDENTIAL_KEYS = { accessKey: 'accessKey', secretKey: 'secretKey' } as const;

/** Names of the objects an S3Backup owns. */
export function s3BackupChildNames(name: string) {
  return { backupCronJob: `${name}-backup`, cacheClaim: `${name}-cache` };
}

/** Labels of an S3Backup's objects; with a job type, those of its CronJob and its Jobs and pods. */
export function s3BackupLabels(name: string, jobType?: JobType): Record<string, string> {
  return {
    [BackupLabels.managedBy]: MANAGED_BY,
    [BackupLabels.s3Backup]: name,
    ...(jobType ? { [BackupLabels.jobType]: jobType } : {}),
  };
}

/** rclone's on-the-fly S3 remote for the bucket, or the prefix inside it. */
export function rcloneSource(source: Pick<S3SourceSpec, 'bucket' | 'prefix'>): string {
  const prefix = (source.prefix ?? '').replace(/^\/+|\/+$/g, '');
  return `:s3:${source.bucket}${prefix ? `/${prefix}` : ''}`;
}

/**
 * rclone's whole configuration, as environment variables: the endpoint and addressing, and the
 * keys read from the credentials Secret by reference (a pod can only read its own namespace's
 * Secrets, and nothing is copied). Without a Secret the bucket is read anonymously.
 */
export function rcloneEnvironment(source: DefaultedS3BackupSpec['source']): V1EnvVar[] {
  const env: V1EnvVar[] = [
    // Any S3-compatible store; AWS itself answers as one too.
    { name: 'RCLONE_S3_PROVIDER', value: 'Other' },
    { name: 'RCLONE_S3_ENDPOINT', value: source.endpoint },
    { name: 'RCLONE_S3_FORCE_PATH_STYLE', value: String(source.forcePathStyle) },
  ];
  if (source.region) env.push({ name: 'RCLONE_S3_REGION', value: source.region });
  const secret = source.credentialsSecretRef?.name;
  if (secret) {
    env.push(
      secretKeyEnv('RCLONE_S3_ACCESS_KEY_ID', secret, S3_CREDENTIAL_KEYS.accessKey),
      secretKeyEnv('RCLONE_S3_SECRET_ACCESS_KEY', secret, S3_CREDENTIAL_KEYS.secretKey),
    );
  }
  // The root filesystem is read-only: rclone's config and cache go to the scratch volume.
  env.push(
    { name: 'RCLONE_CONFIG', value: `${POD_LAYOUT.tmp}/rclone.conf` },
    { name: 'RCLONE_CACHE_DIR', value: `${POD_LAYOUT.tmp}/rclone-cache` },
  );
  return env;
}

const secretKeyEnv = (name: string, secret: string, key: string): V1EnvVar => ({
  name,
  valueFrom: { secretKeyRef: { name: secret, key } },
});

/**
 * The CronJob (and the claim of its copy, when the cache is enabled) that carries out an
 * S3Backup: `rclone sync` brings the copy of the bucket up to date, then restic backs the copy
 * up and applies the retention, reporting as a VolumeBackup's backup pod does.
 */
export function renderS3Backup(
  backup: S3Backup,
  spec: DefaultedS3BackupSpec,
  options: RenderOptions,
): { cronJobs: CronJob[]; persistentVolumeClaims: PersistentVolumeClaim[] } {
  const name = backup.metadata.name ?? '';
  const names = s3BackupChildNames(name);
  const cacheSource: PodVolume['source'] = spec.cache.enabled
    ? { persistentVolumeClaim: { claimName: names.cacheClaim } }
    : { emptyDir: {} };
  const copy: PodVolume = {
    name: 'cache',
    source: cacheSource,
    mountPath: POD_LAYOUT.data,
    subPath: 'data',
  };
  const volumes: PodVolume[] = [{ ...copy, readOnly: true }];
  const env: V1EnvVar[] = [];
  if (spec.cache.enabled) {
    env.push({ name: 'RESTIC_CACHE_DIR', value: POD_LAYOUT.cache });
    volumes.push({ ...copy, mountPath: POD_LAYOUT.cache, subPath: 'restic' });
  }
  env.push({ name: 'RESTIC_PROGRESS_FPS', value: PROGRESS_FPS });
  volumes.push(TMP_VOLUME);

  const labels = s3BackupLabels(name, 'backup');
  const template = resticPodTemplate({
    labels,
    script: backupScript({
      host: spec.host,
      paths: ['/'],
      exclude: [],
      retention: spec.retention,
      noCache: !spec.cache.enabled,
    }),
    image: spec.image,
    resources: spec.resources,
    repository: spec.repository,
    env,
    volumes,
    // rclone writes the copy as root, readable by root without DAC_OVERRIDE.
    capabilities: [],
    scheduling: {
      nodeSelector: spec.nodeSelector,
      tolerations: spec.tolerations,
      affinity: spec.affinity,
    },
  });
  template.spec!.initContainers = [syncContainer(spec, [copy, TMP_VOLUME])];

  const cronJob = scheduledJob(backup, options, {
    name: names.backupCronJob,
    labels,
    schedule: spec.schedule,
    suspended: spec.suspended,
    jobConfig: spec.jobConfig,
    backoffLimit: BACKUP_BACKOFF_LIMIT,
    template,
  });
  const claims = spec.cache.enabled
    ? [volumeClaim(backup, names.cacheClaim, s3BackupLabels(name), spec.cache, options)]
    : [];
  return { cronJobs: [cronJob], persistentVolumeClaims: claims };
}

/** `rclone sync`: objects gone from the bucket leave the copy too, so a snapshot is the bucket. */
function syncContainer(spec: DefaultedS3BackupSpec, volumes: PodVolume[]): V1Container {
  const { syncImage } = spec;
  return {
    name: SYNC_CONTAINER,
    image: `${syncImage.repository}:${syncImage.tag}`,
    imagePullPolicy: syncImage.pullPolicy,
    command: ['rclone', 'sync', rcloneSource(spec.source), POD_LAYOUT.data],
    env: rcloneEnvironment(spec.source),
    resources: containerResources(spec.resources),
    volumeMounts: volumeMounts(volumes),
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext: {
      runAsUser: 0,
      runAsGroup: 0,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
  };
}
