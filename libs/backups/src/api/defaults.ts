import type {
  AccessMode,
  ImageSpec,
  KubeconfigSpec,
  OverwriteMode,
  PullPolicy,
  ResourceList,
  ResourceRequirements,
  RestoreTestStorageType,
  StoredVolumeBackupSpec,
  StoredVolumeRestoreSpec,
  VolumeBackupSpec,
  VolumeRestoreSpec,
  WebhookSpec,
} from './types.js';

/** Fallback of the backup tool's image when BACKUP_IMAGE_REPOSITORY is not set. */
export const FALLBACK_IMAGE_REPOSITORY = 'registry.neutral.com/public/restic';
export const DEFAULT_IMAGE_TAG = '0.18.1';

export const BackupDefaults = {
  schedule: '0 3 * * *',
  paths: ['/'],
  cache: { enabled: true, size: '5Gi', accessMode: 'ReadWriteOnce' as AccessMode },
  resources: {
    requests: { memory: '256Mi', cpu: '200m' },
    limits: { memory: '1Gi', cpu: '1000m' },
  },
  image: { tag: DEFAULT_IMAGE_TAG, pullPolicy: 'Always' as PullPolicy },
  kubeconfig: { inCluster: true, secretKey: 'kubeconfig' },
  check: { enabled: false, schedule: '0 4 * * *', readDataSubset: '10%' },
  restoreTest: {
    enabled: false,
    schedule: '0 5 * * *',
    storage: { type: 'emptyDir' as RestoreTestStorageType, size: '5Gi' },
    fileCount: 50,
    verifyChecksums: true,
  },
  jobConfig: { keepSuccessfulJobs: 3, keepFailedJobs: 3 },
  suspended: false,
} as const;

export const RestoreDefaults = {
  targetPVC: { createNew: true, accessMode: 'ReadWriteOnce' as AccessMode },
  restoreSpec: { paths: ['/'], targetPath: '/', overwrite: 'always' as OverwriteMode },
  jobConfig: { retries: 3, backoffLimit: 6, keepSuccessfulJobs: 3, keepFailedJobs: 3 },
} as const;

export type DefaultedResources = StoredVolumeBackupSpec['resources'];
export type DefaultedResourceList = DefaultedResources['requests'];

/** The image with its repository, which the operator fills from its environment. */
export type DefaultedImage = StoredVolumeBackupSpec['image'] & { repository: string };

export type DefaultedKubeconfig = StoredVolumeBackupSpec['kubeconfig'];
/**
 * The verification jobs' own resources are kept as written (the API server would default
 * inside them): unset, those Jobs use `resources`.
 */
type WithWrittenResources<T> = Omit<T, 'resources'> & { resources?: ResourceRequirements };
export type DefaultedCheck = WithWrittenResources<StoredVolumeBackupSpec['check']>;
export type DefaultedRestoreTest = WithWrittenResources<StoredVolumeBackupSpec['restoreTest']>;

/**
 * A VolumeBackup spec with every default of the schema filled in, as the API server stores it.
 * `check.resources` and `restoreTest.resources` stay unset when absent: those Jobs then use
 * `resources`. `host` is filled when the resource's namespace is known.
 */
export type DefaultedVolumeBackupSpec = Omit<
  StoredVolumeBackupSpec,
  'image' | 'check' | 'restoreTest' | 'webhooks'
> & {
  image: DefaultedImage;
  check: DefaultedCheck;
  restoreTest: DefaultedRestoreTest;
  /** As written: the signing key's name defaults where it is read. */
  webhooks?: WebhookSpec;
};

export type DefaultedVolumeRestoreSpec = StoredVolumeRestoreSpec & { image: DefaultedImage };

type Environment = Record<string, string | undefined>;

/** The backup tool's image repository: BACKUP_IMAGE_REPOSITORY, else the public mirror. */
export function defaultImageRepository(env: Environment = process.env): string {
  const configured = env.BACKUP_IMAGE_REPOSITORY?.trim();
  return configured ? configured : FALLBACK_IMAGE_REPOSITORY;
}

/** `<namespace>-<claim>`: the host the snapshots of a VolumeBackup are recorded under. */
export function defaultBackupHost(namespace: string, claimName: string): string {
  return `${namespace}-${claimName}`;
}

/**
 * Fills every default of the VolumeBackup schema, as the API server does from the CRD, plus
 * the two it cannot: the image repository from the environment and the host from `namespace`.
 * Absent (undefined or null) fields get their default; given ones are kept.
 */
export function withVolumeBackupDefaults(
  spec: VolumeBackupSpec,
  namespace?: string,
  env: Environment = process.env,
): DefaultedVolumeBackupSpec {
  const d = BackupDefaults;
  const host =
    spec.host ??
    (namespace !== undefined ? defaultBackupHost(namespace, spec.volumeClaimRef.name) : undefined);
  const storage = spec.restoreTest?.storage;
  const defaulted: DefaultedVolumeBackupSpec = {
    ...spec,
    schedule: spec.schedule ?? d.schedule,
    paths: spec.paths ?? [...d.paths],
    cache: {
      ...spec.cache,
      enabled: spec.cache?.enabled ?? d.cache.enabled,
      size: spec.cache?.size ?? d.cache.size,
      accessMode: spec.cache?.accessMode ?? d.cache.accessMode,
    },
    resources: withResourceDefaults(spec.resources),
    image: withImageDefaults(spec.image, env),
    kubeconfig: withKubeconfigDefaults(spec.kubeconfig),
    check: {
      ...spec.check,
      enabled: spec.check?.enabled ?? d.check.enabled,
      schedule: spec.check?.schedule ?? d.check.schedule,
      readDataSubset: spec.check?.readDataSubset ?? d.check.readDataSubset,
    },
    restoreTest: {
      ...spec.restoreTest,
      enabled: spec.restoreTest?.enabled ?? d.restoreTest.enabled,
      schedule: spec.restoreTest?.schedule ?? d.restoreTest.schedule,
      storage: {
        ...storage,
        type: storage?.type ?? d.restoreTest.storage.type,
        size: storage?.size ?? d.restoreTest.storage.size,
      },
      fileCount: spec.restoreTest?.fileCount ?? d.restoreTest.fileCount,
      verifyChecksums: spec.restoreTest?.verifyChecksums ?? d.restoreTest.verifyChecksums,
    },
    jobConfig: {
      keepSuccessfulJobs: spec.jobConfig?.keepSuccessfulJobs ?? d.jobConfig.keepSuccessfulJobs,
      keepFailedJobs: spec.jobConfig?.keepFailedJobs ?? d.jobConfig.keepFailedJobs,
    },
    suspended: spec.suspended ?? d.suspended,
  };
  if (host !== undefined) defaulted.host = host;
  return dropNulls(defaulted);
}

/** Fills every default of the VolumeRestore schema, the image repository from the environment. */
export function withVolumeRestoreDefaults(
  spec: VolumeRestoreSpec,
  env: Environment = process.env,
): DefaultedVolumeRestoreSpec {
  const d = RestoreDefaults;
  const restoreSpec = spec.restoreSpec;
  const jobConfig = spec.jobConfig;
  return dropNulls({
    ...spec,
    targetPVC: {
      ...spec.targetPVC,
      createNew: spec.targetPVC?.createNew ?? d.targetPVC.createNew,
      accessMode: spec.targetPVC?.accessMode ?? d.targetPVC.accessMode,
    },
    restoreSpec: {
      ...restoreSpec,
      paths: restoreSpec?.paths ?? [...d.restoreSpec.paths],
      targetPath: restoreSpec?.targetPath ?? d.restoreSpec.targetPath,
      overwrite: restoreSpec?.overwrite ?? d.restoreSpec.overwrite,
    },
    jobConfig: {
      ...jobConfig,
      retries: jobConfig?.retries ?? d.jobConfig.retries,
      backoffLimit: jobConfig?.backoffLimit ?? d.jobConfig.backoffLimit,
      keepSuccessfulJobs: jobConfig?.keepSuccessfulJobs ?? d.jobConfig.keepSuccessfulJobs,
      keepFailedJobs: jobConfig?.keepFailedJobs ?? d.jobConfig.keepFailedJobs,
    },
    resources: withResourceDefaults(spec.resources),
    image: withImageDefaults(spec.image, env),
    kubeconfig: withKubeconfigDefaults(spec.kubeconfig),
  });
}

export function withResourceDefaults(resources?: ResourceRequirements): DefaultedResources {
  const d = BackupDefaults.resources;
  return {
    requests: { ...d.requests, ...definedEntries(resources?.requests) },
    limits: { ...d.limits, ...definedEntries(resources?.limits) },
  };
}

function withImageDefaults(image: ImageSpec | undefined, env: Environment): DefaultedImage {
  return {
    repository: image?.repository ?? defaultImageRepository(env),
    tag: image?.tag ?? BackupDefaults.image.tag,
    pullPolicy: image?.pullPolicy ?? BackupDefaults.image.pullPolicy,
  };
}

function withKubeconfigDefaults(kubeconfig: KubeconfigSpec | undefined): DefaultedKubeconfig {
  const defaulted: DefaultedKubeconfig = {
    inCluster: kubeconfig?.inCluster ?? BackupDefaults.kubeconfig.inCluster,
  };
  const secretRef = kubeconfig?.secretRef;
  if (secretRef) {
    defaulted.secretRef = {
      ...secretRef,
      key: secretRef.key ?? BackupDefaults.kubeconfig.secretKey,
    };
  }
  return defaulted;
}

function definedEntries(list: ResourceList | undefined): Record<string, string> {
  const entries = Object.entries(list ?? {}).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== null,
  );
  return Object.fromEntries(entries);
}

/** A null the API server stored for an absent field means "unset", like undefined. */
function dropNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(dropNulls) as T;
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, child]) => child !== null && child !== undefined)
    .map(([key, child]) => [key, dropNulls(child)]);
  return Object.fromEntries(entries) as T;
}
