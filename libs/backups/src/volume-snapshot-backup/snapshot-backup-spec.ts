import {
  DEFAULT_IMAGE_TAG,
  defaultBackupHost,
  type DefaultedImage,
  type DefaultedResources,
  defaultImageRepository,
} from '../api/defaults.js';
import type {
  SnapshotCacheSpec,
  VolumeSnapshotBackup,
  VolumeSnapshotBackupSpec,
} from '../api/types.js';
import { BackupLabels, MANAGED_BY } from '../render/pod.js';

/** The defaults of the VolumeSnapshotBackup schema (3-cluster-operators.md, Limits). */
export const SnapshotBackupDefaults = {
  snapshot: { force: true, timeoutSeconds: 600, namePrefix: 'backup', keepLast: 3, keepForDays: 7 },
  temporaryVolume: { timeoutSeconds: 300 },
  cache: { enabled: false, size: '1Gi' },
  resources: {
    requests: { memory: '256Mi', cpu: '200m' },
    limits: { memory: '2Gi', cpu: '2000m' },
  },
  image: { tag: DEFAULT_IMAGE_TAG, pullPolicy: 'IfNotPresent' as const },
  paths: ['/'],
} as const;

export interface DefaultedSnapshotBackupSpec extends VolumeSnapshotBackupSpec {
  openstack: {
    credentialsSecretRef?: { name: string; namespace: string };
    region?: string;
    autoDiscover: boolean;
  };
  snapshot: {
    force: boolean;
    timeout: number;
    namePrefix: string;
    retention: { keepLast: number; keepForDays: number };
  };
  temporaryVolume: { storageClass?: string; timeout: number };
  host: string;
  paths: string[];
  cache: SnapshotCacheSpec & { enabled: boolean; size: string };
  resources: DefaultedResources;
  image: DefaultedImage;
}

/**
 * Every default of the schema, as the API server fills them from the CRD, plus those it cannot:
 * the image repository from the environment, the host and the Secret's namespace from the
 * resource's namespace.
 */
export function withSnapshotBackupDefaults(
  spec: VolumeSnapshotBackupSpec,
  namespace: string,
  env: NodeJS.ProcessEnv = process.env,
): DefaultedSnapshotBackupSpec {
  const d = SnapshotBackupDefaults;
  const secretRef = spec.openstack?.credentialsSecretRef;
  return {
    ...spec,
    openstack: {
      ...(secretRef?.name
        ? {
            credentialsSecretRef: {
              name: secretRef.name,
              namespace: secretRef.namespace || namespace,
            },
          }
        : {}),
      ...(spec.openstack?.region ? { region: spec.openstack.region } : {}),
      autoDiscover: spec.openstack?.autoDiscover ?? true,
    },
    snapshot: {
      force: spec.snapshot?.force ?? d.snapshot.force,
      timeout: spec.snapshot?.timeout ?? d.snapshot.timeoutSeconds,
      namePrefix: spec.snapshot?.namePrefix || d.snapshot.namePrefix,
      retention: {
        keepLast: spec.snapshot?.retention?.keepLast ?? d.snapshot.keepLast,
        keepForDays: spec.snapshot?.retention?.keepForDays ?? d.snapshot.keepForDays,
      },
    },
    temporaryVolume: {
      ...(spec.temporaryVolume?.storageClass
        ? { storageClass: spec.temporaryVolume.storageClass }
        : {}),
      timeout: spec.temporaryVolume?.timeout ?? d.temporaryVolume.timeoutSeconds,
    },
    host: spec.host ?? defaultBackupHost(namespace, spec.volumeClaimRef.name),
    paths: spec.paths ?? [...d.paths],
    cache: {
      ...spec.cache,
      enabled: spec.cache?.enabled ?? d.cache.enabled,
      size: spec.cache?.size ?? d.cache.size,
    },
    resources: {
      requests: { ...d.resources.requests, ...defined(spec.resources?.requests) },
      limits: { ...d.resources.limits, ...defined(spec.resources?.limits) },
    },
    image: {
      repository: spec.image?.repository ?? defaultImageRepository(env),
      tag: spec.image?.tag ?? d.image.tag,
      pullPolicy: spec.image?.pullPolicy ?? d.image.pullPolicy,
    },
  };
}

function defined(list: Record<string, string | undefined> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(list ?? {}).filter((entry): entry is [string, string] => entry[1] != null),
  );
}

/** The label on a VolumeSnapshotBackup's Job, claims and persistent volume. */
export const SNAPSHOT_BACKUP_LABEL = 'backups.k8s.neutral.com/volume-snapshot-backup';
/** The namespace of the owner, on the (cluster-scoped) persistent volume. */
export const SNAPSHOT_BACKUP_NAMESPACE_LABEL =
  'backups.k8s.neutral.com/volume-snapshot-backup-namespace';

/** Cinder metadata keys of the snapshots and volumes the operator creates. */
export const CinderMetadata = {
  managedBy: 'managed-by',
  /** `<namespace>/<claim>`: the snapshots retention counts together. */
  source: 'backups.k8s.neutral.com/source',
  /** `<namespace>/<name>` of the VolumeSnapshotBackup that made it. */
  owner: 'backups.k8s.neutral.com/volume-snapshot-backup',
  ownerUid: 'backups.k8s.neutral.com/uid',
} as const;

export function snapshotBackupLabels(backup: VolumeSnapshotBackup): Record<string, string> {
  return {
    [BackupLabels.managedBy]: MANAGED_BY,
    [SNAPSHOT_BACKUP_LABEL]: backup.metadata.name ?? '',
  };
}

/**
 * The names of a run's objects, all derived from the resource so that an operator restarted
 * at any step finds what it already made. The persistent volume is cluster-wide: its name
 * carries the uid.
 */
export function snapshotBackupNames(backup: VolumeSnapshotBackup) {
  const name = backup.metadata.name ?? '';
  return {
    job: `${name}-backup`,
    temporaryClaim: `${name}-snapshot`,
    cacheClaim: `${name}-cache`,
    persistentVolume: `snapshot-backup-${backup.metadata.uid ?? ''}`,
    cinderVolume: `snapshot-backup-${backup.metadata.namespace ?? ''}-${name}`,
  };
}

/** `<prefix>-<namespace>-<name>-<UTC yyyymmddhhmmss>`: the snapshot name of a run from `start`. */
export function snapshotName(prefix: string, backup: VolumeSnapshotBackup, start: Date): string {
  const stamp = start.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${prefix}-${backup.metadata.namespace ?? ''}-${backup.metadata.name ?? ''}-${stamp}`;
}
