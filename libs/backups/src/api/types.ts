import type { KubeObject, Stored, Written } from '@platform/kube';
import type {
  cache,
  jobHistory,
  kubeconfig,
  objectReference,
  repository,
  retention,
  jobResources,
  resticImage,
  secretReference,
  tolerations,
  affinity,
} from '../crds/definitions/common.js';
import type { s3BackupSpec, s3BackupStatus } from '../crds/definitions/s3-backup.js';
import type { volumeBackupSpec, volumeBackupStatus } from '../crds/definitions/volume-backup.js';
import type { volumeRestoreSpec, volumeRestoreStatus } from '../crds/definitions/volume-restore.js';
import type {
  volumeSnapshotBackupSpec,
  volumeSnapshotBackupStatus,
} from '../crds/definitions/volume-snapshot-backup.js';
import type { webhookDeliveries, webhooks } from '../crds/definitions/webhooks.js';

export type { Condition, KubeObject } from '@platform/kube';

/*
 * The TypeScript types of the backup kinds, inferred from the schemas the CRDs are generated
 * from (libs/backups/src/crds/definitions). `…Spec` is what a client may write, every
 * defaulted field optional, because the reconcilers fill the defaults themselves
 * (withVolumeBackupDefaults) and so also handle objects stored before a default existed;
 * `Stored…Spec` is what the API server returns, defaults filled in.
 */

type Item<T> = T extends readonly (infer I)[] ? I : never;
type Field<T, K extends keyof NonNullable<T>> = NonNullable<NonNullable<T>[K]>;

// ---- shared backup types -------------------------------------------------------------------

export type LocalObjectReference = Written<ReturnType<typeof objectReference>>;
export type SecretReference = Written<ReturnType<typeof secretReference>>;
export type RepositorySpec = Written<typeof repository>;
/**
 * The backends the backup Jobs can reach. `local` and `sftp` are refused by the VolumeBackup,
 * VolumeRestore and S3Backup CRDs: a local path would live in the Job pod's own filesystem and
 * vanish with it, and sftp needs an SSH key file and known_hosts the pods are never given.
 */
export type RepositoryType = RepositorySpec['type'];
export type RetentionSpec = Written<typeof retention>;
export type CacheSpec = Written<ReturnType<typeof cache>>;
export type AccessMode = Field<CacheSpec, 'accessMode'>;
export type ResourceRequirements = Written<typeof jobResources>;
export type ResourceList = Field<ResourceRequirements, 'requests'>;
export type ImageSpec = Written<ReturnType<typeof resticImage>>;
export type PullPolicy = Field<ImageSpec, 'pullPolicy'>;
export type KubeconfigSpec = Written<typeof kubeconfig>;
export type KubeconfigSecretReference = Field<KubeconfigSpec, 'secretRef'>;
export type JobConfigSpec = Written<typeof jobHistory>;
export type Toleration = Item<Written<typeof tolerations>>;
/** The cluster's affinity rules (node, pod and pod anti-affinity), passed to the pods as given. */
export type Affinity = Written<typeof affinity>;
export type WebhookSpec = Written<ReturnType<typeof webhooks>>;
export type WebhookSecretRef = Field<WebhookSpec, 'secretRef'>;
/**
 * One webhook delivery and its attempts. Pending deliveries carry their body, so an operator
 * that restarts sends exactly what it would have sent, under the same `webhook-id`.
 */
export type WebhookDeliveryStatus = Item<Stored<ReturnType<typeof webhookDeliveries>>>;
export type WebhookDeliveryState = WebhookDeliveryStatus['state'];

// ---- VolumeBackup --------------------------------------------------------------------------

export type VolumeBackupSpec = Written<typeof volumeBackupSpec>;
export type StoredVolumeBackupSpec = Stored<typeof volumeBackupSpec>;
export type CheckSpec = Field<VolumeBackupSpec, 'check'>;
export type RestoreTestSpec = Field<VolumeBackupSpec, 'restoreTest'>;
export type RestoreTestStorageSpec = Field<RestoreTestSpec, 'storage'>;
export type RestoreTestStorageType = Field<RestoreTestStorageSpec, 'type'>;
export type VolumeBackupStatus = Stored<typeof volumeBackupStatus>;
export type VolumeBackupPhase = Field<VolumeBackupStatus, 'phase'>;
/** The newest finished check or restore-test Job. */
export type VerificationStatus = Field<VolumeBackupStatus, 'check'> &
  Partial<Field<VolumeBackupStatus, 'restoreTest'>>;
export type VolumeBackup = KubeObject<VolumeBackupSpec, VolumeBackupStatus>;

// ---- VolumeRestore -------------------------------------------------------------------------

export type VolumeRestoreSpec = Written<typeof volumeRestoreSpec>;
export type StoredVolumeRestoreSpec = Stored<typeof volumeRestoreSpec>;
export type SourceBackupSpec = Field<VolumeRestoreSpec, 'sourceBackup'>;
export type SourceRepositorySpec = Field<VolumeRestoreSpec, 'sourceRepository'>;
export type TargetPvcSpec = VolumeRestoreSpec['targetPVC'];
export type RestoreSpec = Field<VolumeRestoreSpec, 'restoreSpec'>;
export type OverwriteMode = Field<RestoreSpec, 'overwrite'>;
export type RestoreJobConfigSpec = Field<VolumeRestoreSpec, 'jobConfig'>;
export type VolumeRestoreStatus = Stored<typeof volumeRestoreStatus>;
export type VolumeRestorePhase = Field<VolumeRestoreStatus, 'phase'>;
export type RestoreProgressStatus = Field<VolumeRestoreStatus, 'progress'>;
export type RestoreSourceInfo = Field<VolumeRestoreStatus, 'sourceInfo'>;
export type RestoreTargetInfo = Field<VolumeRestoreStatus, 'targetInfo'>;
export type RestoreJobInfo = Field<VolumeRestoreStatus, 'jobInfo'>;
export type RestoreJobRecord = Item<Field<RestoreJobInfo, 'jobHistory'>>;
export type RestoreJobPhase = Field<RestoreJobRecord, 'phase'>;
export type VolumeRestore = KubeObject<VolumeRestoreSpec, VolumeRestoreStatus>;

// ---- VolumeSnapshotBackup ------------------------------------------------------------------

export type VolumeSnapshotBackupSpec = Written<typeof volumeSnapshotBackupSpec>;
export type StoredVolumeSnapshotBackupSpec = Stored<typeof volumeSnapshotBackupSpec>;
export type OpenStackSpec = Field<VolumeSnapshotBackupSpec, 'openstack'>;
export type SnapshotSpec = Field<VolumeSnapshotBackupSpec, 'snapshot'>;
export type SnapshotRetentionSpec = Field<SnapshotSpec, 'retention'>;
export type TemporaryVolumeSpec = Field<VolumeSnapshotBackupSpec, 'temporaryVolume'>;
export type SnapshotCacheSpec = Field<VolumeSnapshotBackupSpec, 'cache'>;
export type VolumeSnapshotBackupStatus = Stored<typeof volumeSnapshotBackupStatus>;
export type VolumeSnapshotBackupPhase = Field<VolumeSnapshotBackupStatus, 'phase'>;
export type CurrentSnapshotStatus = Field<VolumeSnapshotBackupStatus, 'currentSnapshot'>;
export type TemporaryVolumeStatus = Field<VolumeSnapshotBackupStatus, 'temporaryVolume'>;
export type SnapshotBackupJobStatus = Field<VolumeSnapshotBackupStatus, 'backupJob'>;
export type SnapshotLastBackupStatus = Field<VolumeSnapshotBackupStatus, 'lastBackup'>;
export type VolumeSnapshotBackup = KubeObject<VolumeSnapshotBackupSpec, VolumeSnapshotBackupStatus>;

// ---- S3Backup ------------------------------------------------------------------------------

export type S3BackupSpec = Written<typeof s3BackupSpec>;
export type StoredS3BackupSpec = Stored<typeof s3BackupSpec>;
export type S3SourceSpec = S3BackupSpec['source'];
export type SyncImageSpec = Field<S3BackupSpec, 'syncImage'>;
export type S3BackupStatus = Stored<typeof s3BackupStatus>;
export type S3BackupPhase = Field<S3BackupStatus, 'phase'>;
export type S3Backup = KubeObject<S3BackupSpec, S3BackupStatus>;
