import type { V1EnvVar, V1PodTemplateSpec } from '@kubernetes/client-node';
import {
  defaultBackupHost,
  type DefaultedVolumeBackupSpec,
  withResourceDefaults,
  withVolumeBackupDefaults,
} from '../api/defaults.js';
import type { AccessMode, VolumeBackup } from '../api/types.js';
import {
  BackupLabels,
  type CronJob,
  type JobType,
  MANAGED_BY,
  type PersistentVolumeClaim,
  type PodVolume,
  PROGRESS_FPS,
  type RenderOptions,
  RESTORE_CAPABILITIES,
  resticPodTemplate,
  type Scheduling,
  TMP_VOLUME,
} from './pod.js';
import { backupScript, checkScript, POD_LAYOUT } from './restic.js';
import { restoreTestScript } from './restic-restore.js';
import { scheduledJob, volumeClaim } from './scheduled-job.js';

export {
  BackupLabels,
  type CronJob,
  type JobType,
  MANAGED_BY,
  type PersistentVolumeClaim,
  type RenderOptions,
} from './pod.js';
export { type BackupSummary, formatBinaryQuantity, parseBackupSummary } from './restic-output.js';

/** Pod retries inside one backup Job: a rerun of an interrupted backup is cheap with restic. */
export const BACKUP_BACKOFF_LIMIT = 2;
/** Check and restore-test failures are findings to report, retried once for a flaky network. */
export const VERIFY_BACKOFF_LIMIT = 1;
/** Names of the objects a VolumeBackup owns. */
export function volumeBackupChildNames(name: string) {
  return {
    backupCronJob: `${name}-backup`,
    checkCronJob: `${name}-check`,
    restoreTestCronJob: `${name}-restore-test`,
    cacheClaim: `${name}-cache`,
    restoreTestClaim: `${name}-restore-test`,
  };
}

/** Labels of a VolumeBackup's objects; with a job type, those of one CronJob and its Jobs and pods. */
export function volumeBackupLabels(name: string, jobType?: JobType): Record<string, string> {
  return {
    [BackupLabels.managedBy]: MANAGED_BY,
    [BackupLabels.volumeBackup]: name,
    ...(jobType ? { [BackupLabels.jobType]: jobType } : {}),
  };
}

/** The host a VolumeBackup's snapshots are recorded under. */
export function backupHost(backup: VolumeBackup): string {
  const spec = backup.spec!;
  return spec.host ?? defaultBackupHost(backup.metadata.namespace ?? '', spec.volumeClaimRef.name);
}

/**
 * The CronJobs (backup, and check and restore test when enabled) and claims (the cache when
 * enabled, the restore test's when it restores into a claim) that carry out a VolumeBackup.
 */
export function renderVolumeBackup(
  backup: VolumeBackup,
  options: RenderOptions,
): { cronJobs: CronJob[]; persistentVolumeClaims: PersistentVolumeClaim[] } {
  const name = backup.metadata.name ?? '';
  const spec = withVolumeBackupDefaults(backup.spec!, backup.metadata.namespace ?? '');
  const names = volumeBackupChildNames(name);
  const cronJobs = [backupCronJob(backup, spec, options)];
  if (spec.check.enabled) cronJobs.push(checkCronJob(backup, spec, options));
  if (spec.restoreTest.enabled) cronJobs.push(restoreTestCronJob(backup, spec, options));

  const persistentVolumeClaims: PersistentVolumeClaim[] = [];
  if (spec.cache.enabled) {
    persistentVolumeClaims.push(
      claim(backup, names.cacheClaim, spec.cache, spec.cache.accessMode, options),
    );
  }
  if (spec.restoreTest.enabled && spec.restoreTest.storage.type === 'pvc') {
    persistentVolumeClaims.push(
      claim(backup, names.restoreTestClaim, spec.restoreTest.storage, 'ReadWriteOnce', options),
    );
  }
  return { cronJobs, persistentVolumeClaims };
}

function backupCronJob(
  backup: VolumeBackup,
  spec: DefaultedVolumeBackupSpec,
  options: RenderOptions,
): CronJob {
  const name = backup.metadata.name ?? '';
  const names = volumeBackupChildNames(name);
  const env: V1EnvVar[] = [];
  const volumes = [sourceVolume(spec)];
  if (spec.cache.enabled) {
    env.push({ name: 'RESTIC_CACHE_DIR', value: POD_LAYOUT.cache });
    volumes.push({
      name: 'cache',
      source: { persistentVolumeClaim: { claimName: names.cacheClaim } },
      mountPath: POD_LAYOUT.cache,
    });
  }
  env.push({ name: 'RESTIC_PROGRESS_FPS', value: PROGRESS_FPS });
  volumes.push(TMP_VOLUME);
  const script = backupScript({
    host: spec.host!,
    paths: spec.paths,
    exclude: spec.exclude ?? [],
    retention: spec.retention,
    noCache: !spec.cache.enabled,
  });
  return cronJob(backup, spec, options, {
    name: names.backupCronJob,
    jobType: 'backup',
    schedule: spec.schedule,
    backoffLimit: BACKUP_BACKOFF_LIMIT,
    template: resticPodTemplate({
      labels: volumeBackupLabels(name, 'backup'),
      script,
      image: spec.image,
      resources: spec.resources,
      repository: spec.repository,
      env,
      volumes,
      capabilities: ['DAC_OVERRIDE'],
      scheduling: scheduling(spec),
    }),
  });
}

function checkCronJob(
  backup: VolumeBackup,
  spec: DefaultedVolumeBackupSpec,
  options: RenderOptions,
): CronJob {
  const name = backup.metadata.name ?? '';
  return cronJob(backup, spec, options, {
    name: volumeBackupChildNames(name).checkCronJob,
    jobType: 'check',
    schedule: spec.check.schedule,
    backoffLimit: VERIFY_BACKOFF_LIMIT,
    template: resticPodTemplate({
      labels: volumeBackupLabels(name, 'check'),
      script: checkScript({ readDataSubset: spec.check.readDataSubset }),
      image: spec.image,
      resources: spec.check.resources ? withResourceDefaults(spec.check.resources) : spec.resources,
      repository: spec.repository,
      env: [],
      volumes: [TMP_VOLUME],
      capabilities: [],
      scheduling: scheduling(spec),
    }),
  });
}

function restoreTestCronJob(
  backup: VolumeBackup,
  spec: DefaultedVolumeBackupSpec,
  options: RenderOptions,
): CronJob {
  const name = backup.metadata.name ?? '';
  const names = volumeBackupChildNames(name);
  const test = spec.restoreTest;
  const volumes: PodVolume[] = test.verifyChecksums ? [sourceVolume(spec)] : [];
  volumes.push({
    name: 'restore-test',
    source:
      test.storage.type === 'pvc'
        ? { persistentVolumeClaim: { claimName: names.restoreTestClaim } }
        : { emptyDir: { sizeLimit: test.storage.size } },
    mountPath: POD_LAYOUT.restoreTest,
  });
  volumes.push(TMP_VOLUME);
  return cronJob(backup, spec, options, {
    name: names.restoreTestCronJob,
    jobType: 'restore-test',
    schedule: test.schedule,
    backoffLimit: VERIFY_BACKOFF_LIMIT,
    template: resticPodTemplate({
      labels: volumeBackupLabels(name, 'restore-test'),
      script: restoreTestScript({
        host: spec.host!,
        fileCount: test.fileCount,
        verifyChecksums: test.verifyChecksums,
      }),
      image: spec.image,
      resources: test.resources ? withResourceDefaults(test.resources) : spec.resources,
      repository: spec.repository,
      env: [],
      volumes,
      capabilities: RESTORE_CAPABILITIES,
      scheduling: scheduling(spec),
    }),
  });
}

interface CronJobInput {
  name: string;
  jobType: JobType;
  schedule: string;
  backoffLimit: number;
  template: V1PodTemplateSpec;
}

function cronJob(
  backup: VolumeBackup,
  spec: DefaultedVolumeBackupSpec,
  options: RenderOptions,
  input: CronJobInput,
): CronJob {
  const { jobType, ...rest } = input;
  return scheduledJob(backup, options, {
    ...rest,
    labels: volumeBackupLabels(backup.metadata.name ?? '', jobType),
    suspended: spec.suspended,
    jobConfig: spec.jobConfig,
  });
}

/** The backed-up claim, read-only: a backup never writes to what it protects. */
function sourceVolume(spec: DefaultedVolumeBackupSpec): PodVolume {
  return {
    name: 'data',
    source: { persistentVolumeClaim: { claimName: spec.volumeClaimRef.name, readOnly: true } },
    mountPath: POD_LAYOUT.data,
    readOnly: true,
  };
}

function scheduling(spec: DefaultedVolumeBackupSpec): Scheduling {
  return {
    nodeSelector: spec.nodeSelector,
    tolerations: spec.tolerations,
    affinity: spec.affinity,
  };
}

function claim(
  backup: VolumeBackup,
  name: string,
  storage: { size: string; storageClass?: string },
  accessMode: AccessMode,
  options: RenderOptions,
): PersistentVolumeClaim {
  const labels = volumeBackupLabels(backup.metadata.name ?? '');
  return volumeClaim(backup, name, labels, { ...storage, accessMode }, options);
}
