import type { V1EnvVar, V1ObjectMeta, V1PersistentVolume } from '@kubernetes/client-node';
import type { VolumeSnapshotBackup } from '../api/types.js';
import {
  BackupLabels,
  type Job,
  objectMeta,
  type PersistentVolumeClaim,
  type PodVolume,
  PROGRESS_FPS,
  resticPodTemplate,
  TMP_VOLUME,
} from '../render/pod.js';
import { backupScript, POD_LAYOUT } from '../render/restic.js';
import { BACKUP_BACKOFF_LIMIT } from '../render/volume-backup.js';
import {
  type DefaultedSnapshotBackupSpec,
  SNAPSHOT_BACKUP_NAMESPACE_LABEL,
  snapshotBackupLabels,
  snapshotBackupNames,
} from './snapshot-backup-spec.js';
import { CINDER_CSI_DRIVER, type PersistentVolumeObject } from './source-volume.js';

/** Cluster-scoped: a name and no namespace. */
export type PersistentVolume = V1PersistentVolume & {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta & { name: string };
};

/** The temporary Cinder volume as Kubernetes sees it. */
export interface TemporaryVolumeInput {
  cinderVolumeId: string;
  sizeGB: number;
  /** The backed-up claim's volume: its storage class, file system and topology carry over. */
  source: PersistentVolumeObject;
}

/**
 * A persistent volume of the temporary Cinder volume, pre-bound to the temporary claim. Its
 * reclaim policy is Retain: the operator deletes the Cinder volume itself, once the claim and
 * this volume are gone, so nothing else races it for the delete.
 */
export function temporaryPersistentVolume(
  backup: VolumeSnapshotBackup,
  spec: DefaultedSnapshotBackupSpec,
  input: TemporaryVolumeInput,
): PersistentVolume {
  const names = snapshotBackupNames(backup);
  const source = input.source.spec ?? {};
  const storageClass = spec.temporaryVolume.storageClass ?? source.storageClassName;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: names.persistentVolume,
      labels: {
        ...snapshotBackupLabels(backup),
        [SNAPSHOT_BACKUP_NAMESPACE_LABEL]: backup.metadata.namespace ?? '',
      },
    },
    spec: {
      capacity: { storage: `${input.sizeGB}Gi` },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      volumeMode: 'Filesystem',
      ...(storageClass ? { storageClassName: storageClass } : {}),
      csi: {
        driver: CINDER_CSI_DRIVER,
        volumeHandle: input.cinderVolumeId,
        ...(source.csi?.fsType ? { fsType: source.csi.fsType } : {}),
      },
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: backup.metadata.namespace ?? '',
        name: names.temporaryClaim,
      },
      ...(source.nodeAffinity ? { nodeAffinity: structuredClone(source.nodeAffinity) } : {}),
    },
  };
}

/** The claim of the temporary volume, naming it so that no provisioner makes another. */
export function temporaryClaim(
  backup: VolumeSnapshotBackup,
  volume: PersistentVolume,
): PersistentVolumeClaim {
  const names = snapshotBackupNames(backup);
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: objectMeta(backup, names.temporaryClaim, snapshotBackupLabels(backup), {
      ownerReferences: true,
    }),
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: volume.spec!.capacity!.storage } },
      // An empty class keeps the default class (and its provisioner) out of the binding.
      storageClassName: volume.spec!.storageClassName ?? '',
      volumeName: volume.metadata.name,
      volumeMode: 'Filesystem',
    },
  };
}

export function cacheClaim(
  backup: VolumeSnapshotBackup,
  spec: DefaultedSnapshotBackupSpec,
): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: objectMeta(
      backup,
      snapshotBackupNames(backup).cacheClaim,
      snapshotBackupLabels(backup),
      { ownerReferences: true },
    ),
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: spec.cache.size } },
      ...(spec.cache.storageClass ? { storageClassName: spec.cache.storageClass } : {}),
    },
  };
}

/** The restic Job of the run: VolumeBackup's backup pod, reading the temporary claim. */
export function snapshotBackupJob(
  backup: VolumeSnapshotBackup,
  spec: DefaultedSnapshotBackupSpec,
): Job {
  const names = snapshotBackupNames(backup);
  const labels = { ...snapshotBackupLabels(backup), [BackupLabels.jobType]: 'backup' };
  const env: V1EnvVar[] = [];
  const volumes: PodVolume[] = [
    {
      name: 'data',
      source: { persistentVolumeClaim: { claimName: names.temporaryClaim, readOnly: true } },
      mountPath: POD_LAYOUT.data,
      readOnly: true,
    },
  ];
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
  const template = resticPodTemplate({
    labels,
    script: backupScript({
      host: spec.host,
      paths: spec.paths,
      exclude: spec.exclude ?? [],
      retention: spec.retention,
      noCache: !spec.cache.enabled,
    }),
    image: spec.image,
    resources: spec.resources,
    repository: spec.repository,
    env,
    volumes,
    capabilities: ['DAC_OVERRIDE'],
    scheduling: {
      nodeSelector: spec.nodeSelector,
      tolerations: spec.tolerations,
      affinity: spec.affinity,
    },
  });
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: objectMeta(backup, names.job, labels, { ownerReferences: true }),
    spec: { backoffLimit: BACKUP_BACKOFF_LIMIT, template },
  };
}
