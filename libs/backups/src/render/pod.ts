import type {
  V1CronJob,
  V1EnvVar,
  V1Job,
  V1ObjectMeta,
  V1OwnerReference,
  V1PersistentVolumeClaim,
  V1PodTemplateSpec,
  V1ResourceRequirements,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import type { DefaultedImage } from '../api/defaults.js';
import type {
  Affinity,
  KubeObject,
  RepositorySpec,
  ResourceRequirements,
  Toleration,
} from '../api/types.js';
import { ownerReference } from '@platform/kube';
import { RenderError } from './errors.js';
import { POD_LAYOUT } from './restic.js';

/** Labels on everything the operator creates, and on the Jobs and pods of its CronJobs. */
export const BackupLabels = {
  managedBy: 'app.kubernetes.io/managed-by',
  volumeBackup: 'backups.k8s.neutral.com/volume-backup',
  volumeRestore: 'backups.k8s.neutral.com/volume-restore',
  s3Backup: 'backups.k8s.neutral.com/s3-backup',
  jobType: 'backups.k8s.neutral.com/job-type',
} as const;

export const MANAGED_BY = 'backup-operator';

export type JobType = 'backup' | 'check' | 'restore-test' | 'restore';

/** restic's JSON status lines per second (its default in JSON mode is 60 a second). */
export const PROGRESS_FPS = '0.2';

/** Capabilities of pods that restore files with their owners and modes. */
export const RESTORE_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID'];

/** The container every backup, check, restore test and restore pod runs. */
export const RESTIC_CONTAINER = 'restic';

export interface RenderOptions {
  /** False when the objects go to another cluster, where the owner does not exist. */
  ownerReferences: boolean;
}

type Named = V1ObjectMeta & { name: string; namespace: string };
/** A manifest ready to send: apiVersion, kind, name and namespace always set. */
export type Manifest<T> = T & { apiVersion: string; kind: string; metadata: Named };
export type CronJob = Manifest<V1CronJob>;
export type Job = Manifest<V1Job>;
export type PersistentVolumeClaim = Manifest<V1PersistentVolumeClaim>;

export function objectMeta(
  owner: KubeObject,
  name: string,
  labels: Record<string, string>,
  options: RenderOptions,
): Named {
  const meta: Named = { name, namespace: owner.metadata.namespace ?? '', labels };
  if (options.ownerReferences) meta.ownerReferences = [controllerReference(owner)];
  return meta;
}

/** The owner as the controller of a child, so that deleting it deletes the child. */
export function controllerReference(owner: KubeObject): V1OwnerReference {
  if (!owner.metadata.uid || !owner.metadata.name) {
    throw new RenderError(
      'OwnerWithoutUid',
      `${owner.kind} ${owner.metadata.name ?? ''} has no uid to own objects`,
    );
  }
  return ownerReference(owner);
}

export interface PodVolume {
  name: string;
  source: Omit<V1Volume, 'name'>;
  mountPath: string;
  readOnly?: boolean;
  /** A directory of the volume rather than its root: one volume can be mounted twice. */
  subPath?: string;
}

export interface Scheduling {
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: Affinity;
}

export interface ResticPodInput {
  labels: Record<string, string>;
  script: string;
  image: DefaultedImage;
  resources: ResourceRequirements;
  repository: RepositorySpec;
  /** Set after RESTIC_REPOSITORY. */
  env: V1EnvVar[];
  volumes: PodVolume[];
  /**
   * Capabilities the script needs on top of none: reading every file of a claim whatever its
   * owner and mode (DAC_OVERRIDE), and restoring ownership and modes (CHOWN, FOWNER, FSETID).
   * All are in the Pod Security "baseline" set.
   */
  capabilities: string[];
  scheduling: Scheduling;
}

/** Scratch space for restic's temporary files and the scripts' own. */
export const TMP_VOLUME: PodVolume = {
  name: 'tmp',
  source: { emptyDir: {} },
  mountPath: POD_LAYOUT.tmp,
};

/**
 * The pod of every restic Job: one `restic` container running the script as root (a volume's
 * files belong to anyone) with no other capability than the script needs, a read-only root
 * filesystem and no API credentials. The repository secret's keys become environment
 * variables; the secret is referenced, never copied.
 */
export function resticPodTemplate(input: ResticPodInput): V1PodTemplateSpec {
  const { image, scheduling } = input;
  const capabilities =
    input.capabilities.length > 0 ? { drop: ['ALL'], add: input.capabilities } : { drop: ['ALL'] };
  return {
    metadata: { labels: { ...input.labels } },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: RESTIC_CONTAINER,
          image: `${image.repository}:${image.tag}`,
          imagePullPolicy: image.pullPolicy,
          command: ['sh', '-c', input.script],
          env: [{ name: 'RESTIC_REPOSITORY', value: input.repository.url }, ...input.env],
          envFrom: [{ secretRef: { name: input.repository.secretRef.name } }],
          resources: containerResources(input.resources),
          volumeMounts: volumeMounts(input.volumes),
          terminationMessagePolicy: 'FallbackToLogsOnError',
          securityContext: {
            runAsUser: 0,
            runAsGroup: 0,
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities,
          },
        },
      ],
      volumes: podVolumes(input.volumes),
      ...(scheduling.nodeSelector ? { nodeSelector: { ...scheduling.nodeSelector } } : {}),
      ...(scheduling.tolerations
        ? { tolerations: scheduling.tolerations.map((t) => ({ ...t })) }
        : {}),
      ...(scheduling.affinity ? { affinity: structuredClone(scheduling.affinity) } : {}),
    },
  };
}

export function volumeMounts(volumes: PodVolume[]): V1VolumeMount[] {
  return volumes.map((volume) => ({
    name: volume.name,
    mountPath: volume.mountPath,
    ...(volume.readOnly ? { readOnly: true } : {}),
    ...(volume.subPath ? { subPath: volume.subPath } : {}),
  }));
}

/** The pod's volumes, each once however often it is mounted. */
export function podVolumes(volumes: PodVolume[]): V1Volume[] {
  const byName = new Map(volumes.map((volume) => [volume.name, volume.source]));
  return [...byName].map(([name, source]) => ({ name, ...source }));
}

export function containerResources(resources: ResourceRequirements): V1ResourceRequirements {
  const rendered: V1ResourceRequirements = {};
  const requests = definedQuantities(resources.requests);
  const limits = definedQuantities(resources.limits);
  if (requests) rendered.requests = requests;
  if (limits) rendered.limits = limits;
  return rendered;
}

function definedQuantities(
  list: Record<string, string | undefined> | undefined,
): Record<string, string> | undefined {
  const entries = Object.entries(list ?? {}).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
