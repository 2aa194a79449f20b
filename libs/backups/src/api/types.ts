import type { V1Affinity } from '@kubernetes/client-node';
import type { Condition, KubeObject } from '@platform/kube';

export type { Condition, KubeObject } from '@platform/kube';

// ---- shared backup types -------------------------------------------------------------------

export interface LocalObjectReference {
  name: string;
  namespace?: string;
}

export interface SecretReference {
  name: string;
  namespace?: string;
}

/**
 * The backends the backup Jobs can reach. `local` and `sftp` are refused by the VolumeBackup and
 * VolumeRestore CRDs: a local path would live in the Job pod's own filesystem and vanish with
 * it, and sftp needs an SSH key file and known_hosts the pods are never given.
 */
export type RepositoryType = 's3' | 'gcs' | 'azure' | 'rest';

export interface RepositorySpec {
  type: RepositoryType;
  /** Repository URL with the type prefix, e.g. `s3:https://s3.example.com/bucket/path`. */
  url: string;
  /** Its keys become the backup container's environment (RESTIC_PASSWORD, AWS_ACCESS_KEY_ID, ...). */
  secretRef: SecretReference;
}

export interface RetentionSpec {
  /** Minimum 1. */
  keepLast?: number;
  /** Minimum 0 each. */
  keepDaily?: number;
  keepWeekly?: number;
  keepMonthly?: number;
  keepYearly?: number;
}

export type AccessMode = 'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOncePod';

export interface CacheSpec {
  enabled?: boolean;
  size?: string;
  storageClass?: string;
  accessMode?: AccessMode;
}

/** Quantities by resource name; cpu and memory are the ones the defaults fill. */
export interface ResourceList {
  cpu?: string;
  memory?: string;
  [resource: string]: string | undefined;
}

export interface ResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
}

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

export interface ImageSpec {
  repository?: string;
  tag?: string;
  pullPolicy?: PullPolicy;
}

export interface KubeconfigSecretReference {
  name: string;
  namespace?: string;
  key?: string;
}

export interface KubeconfigSpec {
  inCluster?: boolean;
  secretRef?: KubeconfigSecretReference;
}

export interface CheckSpec {
  enabled?: boolean;
  schedule?: string;
  /** restic's `--read-data-subset`: `n/t`, a percentage (`10%`) or a size (`500M`). */
  readDataSubset?: string;
  resources?: ResourceRequirements;
}

export type RestoreTestStorageType = 'emptyDir' | 'pvc';

export interface RestoreTestStorageSpec {
  type?: RestoreTestStorageType;
  size?: string;
  storageClass?: string;
}

export interface RestoreTestSpec {
  enabled?: boolean;
  schedule?: string;
  storage?: RestoreTestStorageSpec;
  /** 1..500. */
  fileCount?: number;
  verifyChecksums?: boolean;
  resources?: ResourceRequirements;
}

export interface WebhookSpec {
  success?: string;
  failure?: string;
  /** The key (`whsec_` + base64) the deliveries are signed with, in a Secret of the same namespace. */
  secretRef?: WebhookSecretRef;
}

export interface WebhookSecretRef {
  name: string;
  /** Default `secret` (the CRD fills it in). */
  key?: string;
}

export interface JobConfigSpec {
  /** 0..10. */
  keepSuccessfulJobs?: number;
  /** 0..10. */
  keepFailedJobs?: number;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

/** The cluster's affinity rules (node, pod and pod anti-affinity), passed to the pods as given. */
export type Affinity = V1Affinity;

// ---- VolumeBackup --------------------------------------------------------------------------

export interface VolumeBackupSpec {
  volumeClaimRef: LocalObjectReference;
  schedule?: string;
  repository: RepositorySpec;
  /** Relative to the claim's root. */
  paths?: string[];
  /** restic exclude patterns; a leading `/` anchors a pattern at the claim's root. */
  exclude?: string[];
  host?: string;
  retention?: RetentionSpec;
  cache?: CacheSpec;
  resources?: ResourceRequirements;
  image?: ImageSpec;
  kubeconfig?: KubeconfigSpec;
  check?: CheckSpec;
  restoreTest?: RestoreTestSpec;
  webhooks?: WebhookSpec;
  jobConfig?: JobConfigSpec;
  suspended?: boolean;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: Affinity;
}

export type VolumeBackupPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface VolumeBackupStatus {
  observedGeneration?: number;
  phase?: VolumeBackupPhase;
  lastBackup?: string;
  lastSnapshot?: string;
  message?: string;
  volumeSize?: string;
  conditions?: Condition[];
  check?: VerificationStatus;
  restoreTest?: VerificationStatus;
  webhookDeliveries?: WebhookDeliveryStatus[];
}

/** The newest finished check or restore-test Job. */
export interface VerificationStatus {
  job: string;
  result: 'Passed' | 'Failed';
  lastRun: string;
  message: string;
  /** Restore test: the snapshot sampled and what its files showed. */
  snapshotId?: string;
  filesChecked?: number;
  filesVerified?: number;
  filesChanged?: number;
  mismatches?: number;
  /** Check: the errors restic counted. */
  errors?: number;
}

export type WebhookDeliveryState = 'Pending' | 'Delivered' | 'Failed';

/**
 * One webhook delivery and its attempts. Pending deliveries carry their body, so an operator
 * that restarts sends exactly what it would have sent, under the same `webhook-id`.
 */
export interface WebhookDeliveryStatus {
  id: string;
  event: string;
  url: string;
  job: string;
  state: WebhookDeliveryState;
  attempts: number;
  createdAt: string;
  lastAttemptTime?: string;
  lastOutcome?: string;
  nextAttemptTime?: string;
  /** The JSON body while the delivery is pending; dropped once it has ended. */
  payload?: string;
}

export type VolumeBackup = KubeObject<VolumeBackupSpec, VolumeBackupStatus>;

// ---- VolumeRestore -------------------------------------------------------------------------

export interface SourceBackupSpec {
  volumeBackupRef: LocalObjectReference;
  snapshotId?: string;
  snapshotDate?: string;
}

export interface SourceRepositorySpec {
  type: RepositoryType;
  url: string;
  secretRef: SecretReference;
  host?: string;
  snapshotId?: string;
  snapshotDate?: string;
}

export interface TargetPvcSpec {
  createNew?: boolean;
  name?: string;
  storageClass?: string;
  size?: string;
  accessMode?: AccessMode;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
}

export type OverwriteMode = 'always' | 'if-changed' | 'if-newer' | 'never';

export interface RestoreSpec {
  /** Relative to the claim's root; `/` restores everything. */
  paths?: string[];
  exclude?: string[];
  targetPath?: string;
  overwrite?: OverwriteMode;
}

export interface RestoreJobConfigSpec {
  /** 0..10: further Jobs after a failed one. */
  retries?: number;
  /** Minimum 0: pod retries inside one Job. */
  backoffLimit?: number;
  /** Minimum 1. */
  activeDeadlineSeconds?: number;
  keepSuccessfulJobs?: number;
  keepFailedJobs?: number;
}

export interface VolumeRestoreSpec {
  sourceBackup?: SourceBackupSpec;
  sourceRepository?: SourceRepositorySpec;
  targetPVC: TargetPvcSpec;
  restoreSpec?: RestoreSpec;
  jobConfig?: RestoreJobConfigSpec;
  resources?: ResourceRequirements;
  image?: ImageSpec;
  kubeconfig?: KubeconfigSpec;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: Affinity;
}

export type VolumeRestorePhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Retrying';

export interface RestoreProgressStatus {
  filesTotal?: number;
  filesRestored?: number;
  bytesTotal?: number;
  bytesRestored?: number;
  /** 0..100. */
  percentComplete?: number;
}

export interface RestoreSourceInfo {
  snapshotId?: string;
  snapshotDate?: string;
  repository?: string;
  host?: string;
  paths?: string[];
}

export interface RestoreTargetInfo {
  pvcName?: string;
  pvcNamespace?: string;
  storageClass?: string;
  size?: string;
  created?: boolean;
}

export type RestoreJobPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface RestoreJobRecord {
  jobName: string;
  attempt: number;
  phase?: RestoreJobPhase;
  startTime?: string;
  completionTime?: string;
  message?: string;
}

export interface RestoreJobInfo {
  currentJob?: string;
  attempt?: number;
  totalAttempts?: number;
  jobHistory?: RestoreJobRecord[];
}

export interface VolumeRestoreStatus {
  observedGeneration?: number;
  phase?: VolumeRestorePhase;
  startTime?: string;
  completionTime?: string;
  duration?: string;
  message?: string;
  progress?: RestoreProgressStatus;
  sourceInfo?: RestoreSourceInfo;
  targetInfo?: RestoreTargetInfo;
  jobInfo?: RestoreJobInfo;
  conditions?: Condition[];
}

export type VolumeRestore = KubeObject<VolumeRestoreSpec, VolumeRestoreStatus>;

// ---- VolumeSnapshotBackup ------------------------------------------------------------------

export interface OpenStackSpec {
  credentialsSecretRef?: SecretReference;
  region?: string;
  autoDiscover?: boolean;
}

export interface SnapshotRetentionSpec {
  keepLast?: number;
  keepForDays?: number;
}

export interface SnapshotSpec {
  force?: boolean;
  /** Seconds. */
  timeout?: number;
  namePrefix?: string;
  retention?: SnapshotRetentionSpec;
}

export interface TemporaryVolumeSpec {
  storageClass?: string;
  /** Seconds. */
  timeout?: number;
}

export interface SnapshotCacheSpec {
  enabled?: boolean;
  size?: string;
  storageClass?: string;
}

export interface VolumeSnapshotBackupSpec {
  volumeClaimRef: LocalObjectReference;
  openstack?: OpenStackSpec;
  snapshot?: SnapshotSpec;
  temporaryVolume?: TemporaryVolumeSpec;
  repository: RepositorySpec;
  host?: string;
  paths?: string[];
  exclude?: string[];
  retention?: RetentionSpec;
  cache?: SnapshotCacheSpec;
  resources?: ResourceRequirements;
  image?: ImageSpec;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: Affinity;
  /** Signed POSTs after the run, as VolumeBackup's (an addition to the spec table). */
  webhooks?: WebhookSpec;
}

export type VolumeSnapshotBackupPhase =
  'Pending' | 'CreatingSnapshot' | 'CreatingVolume' | 'Backup' | 'Cleanup' | 'Succeeded' | 'Failed';

export interface CurrentSnapshotStatus {
  id?: string;
  name?: string;
  cinderVolumeId?: string;
  status?: string;
  createdAt?: string;
  sizeGB?: number;
}

export interface TemporaryVolumeStatus {
  pvcName?: string;
  pvName?: string;
  cinderVolumeId?: string;
  status?: string;
}

export interface SnapshotBackupJobStatus {
  name?: string;
  status?: string;
  startTime?: string;
  completionTime?: string;
}

export interface SnapshotLastBackupStatus {
  timestamp?: string;
  status?: string;
  duration?: string;
}

export interface VolumeSnapshotBackupStatus {
  observedGeneration?: number;
  phase?: VolumeSnapshotBackupPhase;
  message?: string;
  currentSnapshot?: CurrentSnapshotStatus;
  temporaryVolume?: TemporaryVolumeStatus;
  backupJob?: SnapshotBackupJobStatus;
  lastBackup?: SnapshotLastBackupStatus;
  conditions?: Condition[];
  webhookDeliveries?: WebhookDeliveryStatus[];
}

export type VolumeSnapshotBackup = KubeObject<VolumeSnapshotBackupSpec, VolumeSnapshotBackupStatus>;

// ---- S3Backup (fields not described yet: kept open) ------------------------------------------

export type S3BackupSpec = Record<string, unknown>;
export type S3BackupStatus = Record<string, unknown>;
export type S3Backup = KubeObject<S3BackupSpec, S3BackupStatus>;
