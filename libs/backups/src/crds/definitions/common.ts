import type { V1Affinity } from '@kubernetes/client-node';
import {
  array,
  boolean,
  type Condition,
  integer,
  map,
  narrowed,
  object,
  open,
  type Schema,
  string,
} from '@platform/kube';

/*
 * Schemas several backup kinds share. Quantities are strings here (the CRDs have always
 * written them so), checked against the Kubernetes quantity syntax.
 */

export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

export function quantityString(description: string): Schema<string, string, false>;
export function quantityString(
  description: string,
  defaultValue: string,
): Schema<string, string, true>;
export function quantityString(
  description: string,
  defaultValue?: string,
): Schema<string, string, boolean> {
  return string({ description, pattern: QUANTITY_PATTERN, default: defaultValue });
}

/** An object in this resource's namespace, or another one. */
export const objectReference = (description: string) =>
  object(
    {
      name: string({ description: 'Name of the object.', minLength: 1 }),
      namespace: string({
        description: 'Namespace of the object; defaults to the namespace of this resource.',
      }),
    },
    { description, required: ['name'] },
  );

export const secretReference = (description: string) =>
  object(
    {
      name: string({ description: 'Name of the Secret.', minLength: 1 }),
      namespace: string({
        description: 'Namespace of the Secret; defaults to the namespace of this resource.',
      }),
    },
    { description, required: ['name'] },
  );

/** The backends the job pods can reach (see RepositoryType). */
export const REPOSITORY_TYPES = ['s3', 'gcs', 'azure', 'rest'] as const;

export const REPOSITORY_TYPE_DESCRIPTION =
  'Repository backend: s3, gcs, azure or rest. local and sftp are not supported: a local path ' +
  'would be inside the job pod and lost with it, and sftp needs an SSH key file the job pods ' +
  'are not given.';

export const repository = object(
  {
    type: string({ description: REPOSITORY_TYPE_DESCRIPTION, enum: REPOSITORY_TYPES }),
    url: string({
      description:
        'Repository URL with the backend prefix, e.g. s3:https://s3.example.com/bucket/path.',
      minLength: 1,
    }),
    secretRef: secretReference(
      'Secret with the repository password and backend credentials, passed to the job as environment variables.',
    ),
  },
  {
    description: 'Backup repository the backup tool writes to.',
    required: ['type', 'url', 'secretRef'],
  },
);

export const retention = object(
  {
    keepLast: integer({ description: 'Keep the last n snapshots.', minimum: 1 }),
    keepDaily: integer({ description: 'Keep the last n daily snapshots.', minimum: 0 }),
    keepWeekly: integer({ description: 'Keep the last n weekly snapshots.', minimum: 0 }),
    keepMonthly: integer({ description: 'Keep the last n monthly snapshots.', minimum: 0 }),
    keepYearly: integer({ description: 'Keep the last n yearly snapshots.', minimum: 0 }),
  },
  { description: 'Snapshots to keep when pruning the repository.' },
);

export const paths = array(string(), {
  description: 'Paths inside the volume, relative to its root.',
  default: ['/'],
  minItems: 1,
});

export const exclude = array(string(), { description: 'Patterns excluded from the backup.' });

export const backupHost = string({
  description:
    'Host name recorded with the snapshots; <namespace>-<volumeClaimRef.name> when unset.',
});

export const ACCESS_MODES = [
  'ReadWriteOnce',
  'ReadOnlyMany',
  'ReadWriteMany',
  'ReadWriteOncePod',
] as const;

/** The backup tool's cache claim, as VolumeBackup and S3Backup keep it. */
export const cache = (description = 'Persistent cache of the backup tool.') =>
  object(
    {
      enabled: boolean({
        description: 'Keep the backup tool cache on a persistent volume claim.',
        default: true,
      }),
      size: quantityString('Size of the cache claim.', '5Gi'),
      storageClass: string({
        description: 'Storage class of the cache claim; the cluster default when unset.',
      }),
      accessMode: string({
        description: 'Access mode of the cache claim.',
        enum: ACCESS_MODES,
        default: 'ReadWriteOnce',
      }),
    },
    { description, default: {} },
  );

interface ResourceDefaults {
  requests: { memory: string; cpu: string };
  limits: { memory: string; cpu: string };
}

const resourceList = <M extends string, C extends string>(
  description: string,
  names: { memory: string; cpu: string },
  defaults: { memory: M; cpu: C },
) =>
  object(
    {
      memory: quantityString(names.memory, defaults.memory),
      cpu: quantityString(names.cpu, defaults.cpu),
    },
    { description, default: {} },
  );

/** Requests and limits of a job container, every quantity defaulted. */
export const resourceRequirements = <
  const O extends { description: string; default?: Record<string, never> },
>(
  defaults: ResourceDefaults,
  options: O,
) =>
  object(
    {
      requests: resourceList(
        'Requested resources.',
        { memory: 'Requested memory.', cpu: 'Requested CPU.' },
        defaults.requests,
      ),
      limits: resourceList(
        'Resource limits.',
        { memory: 'Memory limit.', cpu: 'CPU limit.' },
        defaults.limits,
      ),
    },
    options,
  );

export const BACKUP_RESOURCE_DEFAULTS: ResourceDefaults = {
  requests: { memory: '256Mi', cpu: '200m' },
  limits: { memory: '1Gi', cpu: '1000m' },
};

export const jobResources = resourceRequirements(BACKUP_RESOURCE_DEFAULTS, {
  description: 'Compute resources of the job container.',
  default: {},
});

export const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;

/** The restic image; its repository comes from the operator when unset. */
export const resticImage = <const P extends (typeof PULL_POLICIES)[number]>(pullPolicy: P) =>
  object(
    {
      repository: string({
        description:
          'Image repository. Unset means the operator default (BACKUP_IMAGE_REPOSITORY, registry.neutral.com/public/restic).',
      }),
      tag: string({ description: 'Image tag.', default: '0.18.1' }),
      pullPolicy: string({
        description: 'Image pull policy.',
        enum: PULL_POLICIES,
        default: pullPolicy,
      }),
    },
    { description: 'Image of the backup tool.', default: {} },
  );

export const kubeconfig = object(
  {
    inCluster: boolean({
      description:
        'Run the jobs in the cluster of this resource; false runs them in the cluster of secretRef.',
      default: true,
    }),
    secretRef: object(
      {
        name: string({ description: 'Name of the Secret.', minLength: 1 }),
        namespace: string({
          description: 'Namespace of the Secret; defaults to the namespace of this resource.',
        }),
        key: string({ description: 'Key of the kubeconfig in the Secret.', default: 'kubeconfig' }),
      },
      {
        description: 'Secret holding the kubeconfig of the cluster the jobs run in.',
        required: ['name'],
      },
    ),
  },
  {
    description: 'Cluster the jobs run in.',
    default: {},
    validations: [
      {
        rule: 'self.inCluster || has(self.secretRef)',
        message: 'secretRef is required when inCluster is false',
      },
    ],
  },
);

export const jobHistory = object(
  {
    keepSuccessfulJobs: integer({
      description: 'Successful jobs kept.',
      default: 3,
      minimum: 0,
      maximum: 10,
    }),
    keepFailedJobs: integer({
      description: 'Failed jobs kept.',
      default: 3,
      minimum: 0,
      maximum: 10,
    }),
  },
  { description: 'History of finished jobs kept.', default: {} },
);

export const nodeSelector = map(string(), { description: 'Node labels the job pods must match.' });

export const tolerations = array(
  object({
    key: string({ description: 'Taint key.' }),
    operator: string({ description: 'Match operator.', enum: ['Exists', 'Equal'] }),
    value: string({ description: 'Taint value.' }),
    effect: string({
      description: 'Taint effect; all effects when unset.',
      enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
    }),
    tolerationSeconds: integer({
      description: 'Seconds a NoExecute taint is tolerated.',
      format: 'int64',
    }),
  }),
  { description: 'Tolerations of the job pods.' },
);

export const affinity = open<V1Affinity>('Affinity rules of the job pods (core/v1 Affinity).');

export const observedGeneration = integer({
  description: 'Generation of the spec the status describes.',
  format: 'int64',
});

// The operator writes every condition whole, with its transition time.
export const conditions = narrowed<Condition[]>()(
  array(
    object(
      {
        type: string({ description: 'Condition type.' }),
        status: string({ description: 'Condition status.', enum: ['True', 'False', 'Unknown'] }),
        lastTransitionTime: string({
          description: 'Time the status last changed.',
          format: 'date-time',
        }),
        reason: string({ description: 'Machine-readable reason of the last transition.' }),
        message: string({ description: 'Human-readable details.' }),
      },
      { required: ['type', 'status'] },
    ),
    {
      description: 'Latest observations of the resource state.',
      listType: 'map',
      mapKeys: ['type'],
    },
  ),
);
