import { GroupwareKindRefs } from '@platform/groupware';
import type { KindRef, KubeClient, KubeObject } from '@platform/kube';

/*
 * What the bench asks of the operator: PROFILES profiles, one pool per profile keeping
 * POOL_SIZE instances in its own namespace, DIRECT instances created by hand across all
 * NAMESPACES, and CLAIMS Groupware objects that claim pooled instances (which the pools
 * refill). With the defaults that is 5 × 50 pooled + 50 refills + 200 direct = 500
 * GroupwareInstances across 10 namespaces and 5 pools.
 */
export const PROFILES = Number(process.env.BENCH_PROFILES ?? 5);
export const POOL_SIZE = Number(process.env.BENCH_POOL_SIZE ?? 50);
export const DIRECT = Number(process.env.BENCH_DIRECT_INSTANCES ?? 200);
export const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 50);
export const NAMESPACES = Number(process.env.BENCH_NAMESPACES ?? 10);
export const TOTAL_INSTANCES = PROFILES * POOL_SIZE + CLAIMS + DIRECT;
const CREATE_CONCURRENCY = Number(process.env.BENCH_CREATE_CONCURRENCY ?? 16);

const API_VERSION = 'k8s.neutral.com/v1alpha1';
const namespaceOf = (index: number) => `groupware-${index % NAMESPACES}`;
const profileOf = (index: number) => `profile-${index % PROFILES}`;

/** Instances without a managed database or apps: nothing but Flux has to answer for them. */
const INSTANCE_SPEC = { version: '29', persistence: { enabled: true, size: '10Gi' } };

export function profiles(): KubeObject[] {
  return Array.from({ length: PROFILES }, (_, index) => ({
    apiVersion: API_VERSION,
    kind: 'GroupwareProfile',
    metadata: { name: profileOf(index) },
    spec: { description: `bench profile ${index}`, defaults: { replicaCount: 1 } },
  }));
}

export function pools(): KubeObject[] {
  return Array.from({ length: PROFILES }, (_, index) => ({
    apiVersion: API_VERSION,
    kind: 'GroupwarePool',
    metadata: { name: `pool-${index}`, labels: { lane: `lane-${index}` } },
    spec: {
      profile: profileOf(index),
      size: POOL_SIZE,
      namespace: namespaceOf(index),
      template: INSTANCE_SPEC,
    },
  }));
}

export function directInstances(): KubeObject[] {
  return Array.from({ length: DIRECT }, (_, index) => ({
    apiVersion: API_VERSION,
    kind: 'GroupwareInstance',
    metadata: { name: `instance-${index}`, namespace: namespaceOf(index) },
    spec: { ...INSTANCE_SPEC, profile: profileOf(index) },
  }));
}

/** Groupware objects spread over the pools, in the namespaces that hold no pool. */
export function claimingGroupwares(): KubeObject[] {
  return Array.from({ length: CLAIMS }, (_, index) => ({
    apiVersion: API_VERSION,
    kind: 'Groupware',
    metadata: {
      name: `tenant-${index}`,
      namespace: namespaceOf(PROFILES + (index % Math.max(1, NAMESPACES - PROFILES))),
    },
    spec: {
      profile: profileOf(index),
      poolSelector: { matchLabels: { lane: `lane-${index % PROFILES}` } },
    },
  }));
}

const KIND_REFS: Record<string, KindRef> = GroupwareKindRefs;

/** Creates the objects, CREATE_CONCURRENCY at a time. */
export async function createAll(client: KubeClient, objects: KubeObject[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const object = objects[next++];
      await client.create(KIND_REFS[object.kind], object);
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
}
