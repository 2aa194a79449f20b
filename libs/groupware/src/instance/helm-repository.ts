import type { V1OwnerReference } from '@kubernetes/client-node';
import {
  differsFrom,
  isKubeApiError,
  type KubeObject,
  type ReconcileContext,
  ThirdPartyKinds,
} from '@platform/kube';
import type { GroupwareInstance } from '../crds/types.js';
import { HELM_REPOSITORY, InstanceLabels, MANAGED_BY } from './instance-names.js';

/*
 * The chart source is shared by the instances of a namespace. Each instance using it is one
 * of its owners (not its controller), so the garbage collector deletes it with the last of
 * them and deleting any other instance keeps it.
 */

const Kind = ThirdPartyKinds.HelmRepository;

export function helmRepository(namespace: string, owners: V1OwnerReference[]): KubeObject {
  return {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'HelmRepository',
    metadata: {
      name: HELM_REPOSITORY.name,
      namespace,
      labels: { [InstanceLabels.managedBy]: MANAGED_BY },
      ownerReferences: owners,
    },
    spec: { url: HELM_REPOSITORY.url, interval: '1h' },
  };
}

/** A reference to the instance as one owner among several. */
export function sharedOwnerReference(instance: GroupwareInstance): V1OwnerReference {
  return {
    apiVersion: instance.apiVersion,
    kind: instance.kind,
    name: instance.metadata.name!,
    uid: instance.metadata.uid!,
  };
}

/**
 * Creates the namespace's HelmRepository, or adds the instance to its owners and restores its
 * URL. Concurrent instances write with a resourceVersion precondition; the loser's reconcile
 * fails with 409 and is retried.
 */
export async function ensureHelmRepository(
  context: ReconcileContext,
  instance: GroupwareInstance,
): Promise<void> {
  const namespace = instance.metadata.namespace!;
  const me = sharedOwnerReference(instance);
  const live =
    context.cache(Kind).get(namespace, HELM_REPOSITORY.name) ??
    (await context.client.get(Kind, namespace, HELM_REPOSITORY.name));
  if (!live) {
    try {
      await context.client.create(Kind, helmRepository(namespace, [me]));
      return;
    } catch (error) {
      if (!isKubeApiError(error, 409)) throw error;
      return ensureHelmRepository(context, instance);
    }
  }
  const owners = live.metadata.ownerReferences ?? [];
  const desired = helmRepository(
    namespace,
    owners.some((owner) => owner.uid === me.uid) ? owners : [...owners, me],
  );
  if (!differsFrom(desired.spec, live.spec) && !differsFrom(desired.metadata, live.metadata)) {
    return;
  }
  await context.client.mergePatch(Kind, namespace, HELM_REPOSITORY.name, {
    metadata: {
      resourceVersion: live.metadata.resourceVersion,
      labels: desired.metadata.labels,
      ownerReferences: desired.metadata.ownerReferences,
    },
    spec: desired.spec,
  });
}
