import {
  GroupwareKindRefs,
  type Groupware,
  type GroupwareInstance,
  type GroupwarePool,
  type GroupwareProfile,
  POOL_LABEL,
} from '@platform/groupware';
import { Logger } from '@nestjs/common';
import {
  type KindRef,
  type KubeClient,
  type KubeObject,
  type ObjectCache,
  ObjectStore,
  type ReconcileContext,
} from '@platform/kube';
import { eventually, FakeClock, type FakeKubeApiServer } from '@platform/testing';
import { groupwareObject, OPERATOR_CLOCK_START } from './support.js';

/*
 * Profiles, pools and tenant Groupware against the fake API server. Tests play the
 * GroupwareInstance reconciler's part: they set an instance's status.phase (and url) as it
 * would once its release is Ready.
 */

export const INSTANCE = GroupwareKindRefs.GroupwareInstance;
export const POOL = GroupwareKindRefs.GroupwarePool;
export const PROFILE = GroupwareKindRefs.GroupwareProfile;
export const GROUPWARE = GroupwareKindRefs.Groupware;

/** Writes an instance's status as the instance reconciler would; returns the stored object. */
export function setInstancePhase(
  server: FakeKubeApiServer,
  namespace: string,
  name: string,
  phase: NonNullable<GroupwareInstance['status']>['phase'],
  extra: Record<string, unknown> = {},
): GroupwareInstance {
  const instance = server.get<GroupwareInstance>(INSTANCE, namespace, name);
  if (!instance) throw new Error(`no instance ${namespace}/${name}`);
  return server.put(INSTANCE, { ...instance, status: { ...instance.status, phase, ...extra } });
}

/** Marks Ready, with the url the instance reconciler reports. */
export function markReady(server: FakeKubeApiServer, instance: GroupwareInstance): void {
  const { namespace, name } = instance.metadata;
  setInstancePhase(server, namespace!, name!, 'Ready', { url: `https://${name}.groupware.test` });
}

/** The pool's instances on the server (claimed ones included), sorted by name. */
export function poolInstances(server: FakeKubeApiServer, pool: string): GroupwareInstance[] {
  return server
    .list<GroupwareInstance>(INSTANCE)
    .filter((instance) => instance.metadata.labels?.[POOL_LABEL] === pool)
    .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
}

export function unclaimed(instances: GroupwareInstance[]): GroupwareInstance[] {
  return instances.filter((instance) => !instance.metadata.labels?.['k8s.neutral.com/claimed-by']);
}

export const getPool = (server: FakeKubeApiServer, name: string) =>
  server.get<GroupwarePool>(POOL, undefined, name);
export const getProfile = (server: FakeKubeApiServer, name: string) =>
  server.get<GroupwareProfile>(PROFILE, undefined, name);
export const getGroupware = (server: FakeKubeApiServer, namespace: string, name: string) =>
  server.get<Groupware>(GROUPWARE, namespace, name);
export const getInstance = (
  server: FakeKubeApiServer,
  namespace: string | undefined,
  name: string | undefined,
) => server.get<GroupwareInstance>(INSTANCE, namespace, name ?? '');

export function createPool(
  api: KubeClient,
  name: string,
  spec: Record<string, unknown>,
  labels: Record<string, string> = {},
): Promise<KubeObject> {
  const pool = groupwareObject('GroupwarePool', name, spec);
  pool.metadata.labels = labels;
  return api.create(POOL, pool);
}

/** Waits until the pool has `count` instances, then marks every unclaimed one Ready. */
export async function fillPool(
  server: FakeKubeApiServer,
  pool: string,
  count: number,
): Promise<GroupwareInstance[]> {
  const instances = await eventually(
    () => poolInstances(server, pool),
    (list) => unclaimed(list).length === count,
    `${count} instances in pool ${pool}`,
  );
  for (const instance of unclaimed(instances)) markReady(server, instance);
  return unclaimed(poolInstances(server, pool));
}

/** Successful reconciles of a kind so far, from the operator's metrics. */
export async function reconciles(
  operator: { metrics(): Promise<string> },
  kind: string,
): Promise<number> {
  const line = `operator_reconcile_total{kind="${kind}",result="success"} `;
  const found = (await operator.metrics()).split('\n').find((entry) => entry.startsWith(line));
  return found ? Number(found.slice(line.length)) : 0;
}

/**
 * A reconcile context whose caches are snapshots of the server taken now, which later writes
 * do not reach: a reconciler run by hand with it meets an informer that lags its own writes.
 */
export function staleContext(
  server: FakeKubeApiServer,
  client: KubeClient,
  kinds: KindRef[],
): ReconcileContext {
  const caches = new Map(
    kinds.map((kind) => [kind.kind, ObjectStore.of(server.list<KubeObject>(kind))]),
  );
  return {
    client,
    clock: new FakeClock(OPERATOR_CLOCK_START),
    logger: new Logger('stale-context'),
    cache: <T extends KubeObject>(kind: KindRef) =>
      caches.get(kind.kind) as unknown as ObjectCache<T>,
  };
}

/** Write requests recorded by the server, as `<method> <kind>[/<subresource>] <name>`. */
export function writes(server: FakeKubeApiServer): string[] {
  return server.requests
    .filter((request) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(request.method))
    .map((request) =>
      `${request.method} ${request.kind}${request.subresource ? `/${request.subresource}` : ''} ${request.name ?? ''}`.trim(),
    );
}
