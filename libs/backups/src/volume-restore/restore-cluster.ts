import {
  CoreKinds,
  type KubeClient,
  type KubeObject,
  ObjectStore,
  type ObjectCache,
  type ReconcileContext,
} from '@platform/kube';
import type { VolumeRestore } from '../api/types.js';
import { BackupLabels } from '../render/volume-backup.js';
import type { ObservedJob } from './restore-attempts.js';

export type JobObject = KubeObject<ObservedJob['spec'], ObservedJob['status']> & ObservedJob;

/**
 * Where a restore's Jobs and target claim live: the operator's own cluster, read from the
 * informers' caches, or the cluster its kubeconfig Secret names, read afresh on every pass
 * since nothing watches it.
 */
export interface RestoreCluster {
  readonly remote: boolean;
  /** A reconcile context addressing this cluster (for ensureObject and the client). */
  readonly context: ReconcileContext;
  /** This restore's Jobs. */
  jobs(): JobObject[];
}

export function localRestoreCluster(
  context: ReconcileContext,
  restore: VolumeRestore,
): RestoreCluster {
  const { namespace, name, uid } = restore.metadata;
  return {
    remote: false,
    context,
    jobs: () =>
      context
        .cache<JobObject>(CoreKinds.Job)
        .list(namespace, { [BackupLabels.volumeRestore]: name ?? '' })
        // A restore of the same name deleted earlier may still have Jobs awaiting collection.
        .filter((job) => job.metadata.ownerReferences?.some((ref) => ref.uid === uid)),
  };
}

export async function remoteRestoreCluster(
  context: ReconcileContext,
  client: KubeClient,
  restore: VolumeRestore,
): Promise<RestoreCluster> {
  const { namespace, name } = restore.metadata;
  const labelSelector = `${BackupLabels.volumeRestore}=${name}`;
  const { items } = await client.list<JobObject>(CoreKinds.Job, namespace, { labelSelector });
  const jobs = ObjectStore.of(items);
  const empty = new ObjectStore<KubeObject>();
  const cache = <T extends KubeObject>(kind: { kind: string }): ObjectCache<T> =>
    (kind.kind === CoreKinds.Job.kind ? jobs : empty) as unknown as ObjectCache<T>;
  return { remote: true, context: { ...context, client, cache }, jobs: () => items };
}
