import { Injectable } from '@nestjs/common';
import {
  CoreKinds,
  KubeClient,
  type KindRef,
  type KubeObject,
  ObjectStore,
  type ReconcileContext,
} from '@platform/kube';
import { BackupLabels } from '../render/volume-backup.js';

/** The kinds a VolumeBackup puts into the cluster its backups run in. */
export const CHILD_KINDS: readonly KindRef[] = [
  CoreKinds.CronJob,
  CoreKinds.Job,
  CoreKinds.PersistentVolumeClaim,
];

/**
 * Where a VolumeBackup's CronJobs, Jobs and cache claim live: the operator's own cluster
 * (read from the informers' caches) or the one its kubeconfig Secret names (read afresh on
 * every reconcile, since nothing watches it).
 */
export interface TargetCluster {
  readonly remote: boolean;
  /** A reconcile context addressing this cluster, for ensureObject. */
  readonly context: ReconcileContext;
  /** Objects of a child kind carrying this VolumeBackup's label, in its namespace. */
  children<T extends KubeObject>(kind: KindRef): T[];
}

export function localCluster(
  context: ReconcileContext,
  namespace: string,
  name: string,
): TargetCluster {
  return {
    remote: false,
    context,
    children: <T extends KubeObject>(kind: KindRef) =>
      context.cache<T>(kind).list(namespace, { [BackupLabels.volumeBackup]: name }),
  };
}

export async function remoteCluster(
  context: ReconcileContext,
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<TargetCluster> {
  const labelSelector = `${BackupLabels.volumeBackup}=${name}`;
  const snapshots = new Map<KindRef, ObjectStore<KubeObject>>();
  try {
    await Promise.all(
      CHILD_KINDS.map(async (kind) => {
        const { items } = await client.list(kind, namespace, { labelSelector });
        snapshots.set(kind, ObjectStore.of(items));
      }),
    );
  } catch (error) {
    throw new RemoteClusterUnavailable(
      `the cluster of the kubeconfig Secret could not be read: ${(error as Error).message}`,
    );
  }
  const cacheOf = <T extends KubeObject>(kind: KindRef): ObjectStore<T> =>
    (snapshots.get(kind) ?? new ObjectStore()) as ObjectStore<T>;
  return {
    remote: true,
    context: { ...context, client, cache: cacheOf },
    children: <T extends KubeObject>(kind: KindRef) => cacheOf<T>(kind).list(namespace),
  };
}

/** The kubeconfig Secret is missing, lacks its key, or holds no usable kubeconfig. */
export class KubeconfigUnavailable extends Error {
  override readonly name = 'KubeconfigUnavailable';
}

/** The cluster a kubeconfig Secret names refused or did not answer. */
export class RemoteClusterUnavailable extends Error {
  override readonly name = 'RemoteClusterUnavailable';
}

export interface KubeconfigSecretRef {
  name: string;
  namespace: string;
  key: string;
}

type SecretObject = KubeObject & { data?: Record<string, string> };

/**
 * Clients for the clusters named by kubeconfig Secrets, kept per Secret and rebuilt when the
 * Secret's resourceVersion changes (a rotated credential takes effect on the next reconcile).
 */
@Injectable()
export class RemoteClusterClients {
  private readonly clients = new Map<string, { resourceVersion: string; client: KubeClient }>();

  async clientFor(context: ReconcileContext, ref: KubeconfigSecretRef): Promise<KubeClient> {
    const where = `Secret ${ref.namespace}/${ref.name}`;
    const secret = await context.client.get<SecretObject>(
      CoreKinds.Secret,
      ref.namespace,
      ref.name,
    );
    if (!secret) throw new KubeconfigUnavailable(`the kubeconfig ${where} does not exist`);
    const cacheKey = `${ref.namespace}/${ref.name}/${ref.key}`;
    const resourceVersion = secret.metadata.resourceVersion ?? '';
    const cached = this.clients.get(cacheKey);
    if (cached && cached.resourceVersion === resourceVersion) return cached.client;

    const encoded = secret.data?.[ref.key];
    if (!encoded)
      throw new KubeconfigUnavailable(`the kubeconfig ${where} has no key "${ref.key}"`);
    let client: KubeClient;
    try {
      client = KubeClient.fromKubeconfigYaml(Buffer.from(encoded, 'base64').toString('utf8'));
    } catch (error) {
      throw new KubeconfigUnavailable(
        `the key "${ref.key}" of ${where} is not a usable kubeconfig: ${(error as Error).message}`,
      );
    }
    this.clients.set(cacheKey, { resourceVersion, client });
    return client;
  }
}
