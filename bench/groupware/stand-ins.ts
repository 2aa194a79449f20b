import type { GroupwareInstance } from '@platform/groupware';
import { GroupwareKindRefs } from '@platform/groupware';
import { type KubeObject, ThirdPartyKinds } from '@platform/kube';
import type { FakeKubeApiServer } from '@platform/testing';

/*
 * The controllers a cluster would run beside the groupware operator, played on the fake API
 * server directly (their writes are not the operator's and do not go through HTTP): Flux marks
 * every HelmRelease Ready once it is installed; when the operator does not reconcile
 * GroupwareInstances itself, a stand-in marks each instance Ready as the instance reconciler
 * would once its release is, so pools fill and Groupware objects claim.
 */

type Conditions = Array<{ type: string; status: string }>;

const isReady = (conditions: Conditions | undefined) =>
  conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True');

/** Flux's helm-controller: every HelmRelease of the current generation installed. */
export function playFlux(server: FakeKubeApiServer, now: Date): number {
  let marked = 0;
  for (const release of server.list<KubeObject<unknown, { conditions?: Conditions }>>(
    ThirdPartyKinds.HelmRelease,
  )) {
    if (isReady(release.status?.conditions)) continue;
    server.put(ThirdPartyKinds.HelmRelease, {
      ...release,
      status: {
        observedGeneration: release.metadata.generation,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'InstallSucceeded',
            message: 'Helm install succeeded',
            lastTransitionTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          },
        ],
      },
    });
    marked += 1;
  }
  return marked;
}

/** The instance reconciler's outcome, for an operator built without it. */
export function playInstanceReconciler(server: FakeKubeApiServer): number {
  let marked = 0;
  for (const instance of server.list<GroupwareInstance>(GroupwareKindRefs.GroupwareInstance)) {
    if (instance.status?.phase === 'Ready' || instance.metadata.deletionTimestamp) continue;
    const { namespace, name } = instance.metadata;
    server.put(GroupwareKindRefs.GroupwareInstance, {
      ...instance,
      status: {
        ...instance.status,
        phase: 'Ready',
        observedGeneration: instance.metadata.generation,
        url: `https://${name}.${namespace}.groupware.test`,
      },
    });
    marked += 1;
  }
  return marked;
}
