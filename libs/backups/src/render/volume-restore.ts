import { withVolumeBackupDefaults, withVolumeRestoreDefaults } from '../api/defaults.js';
import type { RepositorySpec, VolumeBackup, VolumeRestore } from '../api/types.js';
import { RenderError } from './errors.js';
import {
  BackupLabels,
  type Job,
  MANAGED_BY,
  objectMeta,
  type PersistentVolumeClaim,
  PROGRESS_FPS,
  type RenderOptions,
  RESTORE_CAPABILITIES,
  resticPodTemplate,
  TMP_VOLUME,
} from './pod.js';
import { POD_LAYOUT } from './restic.js';
import { restoreScript } from './restic-restore.js';

export { type Job, type PersistentVolumeClaim, type RenderOptions } from './pod.js';
export {
  parseRestoreProgress,
  parseRestoreSummary,
  type RestoreProgress,
  type RestoreSummary,
} from './restic-output.js';

/** The repository a restore reads and the host whose snapshots it considers (all when unset). */
export interface RestoreSource {
  repository: RepositorySpec;
  host?: string;
}

export function volumeRestoreLabels(name: string, withJobType = false): Record<string, string> {
  return {
    [BackupLabels.managedBy]: MANAGED_BY,
    [BackupLabels.volumeRestore]: name,
    ...(withJobType ? { [BackupLabels.jobType]: 'restore' } : {}),
  };
}

/** The claim restored into: targetPVC.name, else `<name>-restored`. */
export function restoreTargetPvcName(restore: VolumeRestore): string {
  return restore.spec?.targetPVC?.name || `${restore.metadata.name ?? ''}-restored`;
}

/**
 * Where a restore reads from. With sourceBackup, the repository and host are those of the
 * referenced VolumeBackup, which the caller fetched (its namespace fills the default host);
 * with sourceRepository they are written in the restore itself.
 */
export function resolveRestoreSource(
  restore: VolumeRestore,
  volumeBackup?: VolumeBackup,
): RestoreSource {
  const spec = restore.spec;
  if (spec?.sourceBackup) {
    if (!volumeBackup?.spec) {
      throw new RenderError(
        'SourceBackupUnresolved',
        `VolumeBackup ${spec.sourceBackup.volumeBackupRef.name} is needed to know the repository to restore from`,
      );
    }
    const backupSpec = withVolumeBackupDefaults(
      volumeBackup.spec,
      volumeBackup.metadata.namespace ?? '',
    );
    return { repository: backupSpec.repository, host: backupSpec.host };
  }
  const repository = spec?.sourceRepository;
  if (!repository) {
    throw new RenderError('SourceMissing', 'set sourceBackup or sourceRepository');
  }
  const { type, url, secretRef, host } = repository;
  return { repository: { type, url, secretRef }, ...(host ? { host } : {}) };
}

/**
 * The claim a restore creates, or undefined when it restores into an existing one. It has no
 * owner reference on purpose: deleting the VolumeRestore must never delete the restored data.
 * Throws RenderError TargetSizeRequired when a new claim has no size.
 */
export function renderRestorePvc(
  restore: VolumeRestore,
  _options?: RenderOptions,
): PersistentVolumeClaim | undefined {
  const spec = withVolumeRestoreDefaults(restore.spec!);
  const target = spec.targetPVC;
  if (!target.createNew) return undefined;
  if (!target.size) {
    throw new RenderError(
      'TargetSizeRequired',
      'targetPVC.size is required when targetPVC.createNew is true',
    );
  }
  const name = restore.metadata.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: restoreTargetPvcName(restore),
      namespace: restore.metadata.namespace ?? '',
      labels: { ...target.labels, ...volumeRestoreLabels(name) },
      ...(target.annotations ? { annotations: { ...target.annotations } } : {}),
    },
    spec: {
      accessModes: [target.accessMode],
      resources: { requests: { storage: target.size } },
      ...(target.storageClass ? { storageClassName: target.storageClass } : {}),
    },
  };
}

export interface RestoreJobOptions extends RenderOptions {
  /** 1 for the first Job; each retry is a new Job with the next number. */
  attempt: number;
  /** The claim restored into (restoreTargetPvcName, or the claim renderRestorePvc created). */
  pvcName: string;
  /** Required with sourceBackup (see resolveRestoreSource); derived from sourceRepository otherwise. */
  source?: RestoreSource;
}

/**
 * The one-time Job `<name>-restore-<attempt>` restoring the chosen snapshot (snapshotId, else the
 * newest at or before snapshotDate, else the newest) into the target claim mounted at /restore.
 */
export function renderRestoreJob(restore: VolumeRestore, options: RestoreJobOptions): Job {
  const name = restore.metadata.name ?? '';
  const spec = withVolumeRestoreDefaults(restore.spec!);
  const source = options.source ?? resolveRestoreSource(restore);
  const selection: { snapshotId?: string; snapshotDate?: string } =
    spec.sourceBackup ?? spec.sourceRepository ?? {};
  const labels = volumeRestoreLabels(name, true);
  const script = restoreScript({
    host: source.host,
    snapshotId: selection.snapshotId,
    snapshotDate: selection.snapshotDate,
    paths: spec.restoreSpec.paths,
    exclude: spec.restoreSpec.exclude ?? [],
    targetPath: spec.restoreSpec.targetPath,
    overwrite: spec.restoreSpec.overwrite,
  });
  const { backoffLimit, activeDeadlineSeconds } = spec.jobConfig;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: objectMeta(restore, `${name}-restore-${options.attempt}`, labels, options),
    spec: {
      backoffLimit,
      ...(activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds } : {}),
      template: resticPodTemplate({
        labels,
        script,
        image: spec.image,
        resources: spec.resources,
        repository: source.repository,
        env: [{ name: 'RESTIC_PROGRESS_FPS', value: PROGRESS_FPS }],
        volumes: [
          {
            name: 'restore',
            source: { persistentVolumeClaim: { claimName: options.pvcName } },
            mountPath: POD_LAYOUT.restore,
          },
          TMP_VOLUME,
        ],
        capabilities: RESTORE_CAPABILITIES,
        scheduling: {
          nodeSelector: spec.nodeSelector,
          tolerations: spec.tolerations,
          affinity: spec.affinity,
        },
      }),
    },
  };
}
