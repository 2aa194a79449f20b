import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CLAIMED_BY_LABEL, type Groupware, GroupwareReconciler } from '@platform/groupware';
import { KubeClient } from '@platform/kube';
import { eventually, type FakeKubeApiServer } from '@platform/testing';
import {
  createPool,
  fillPool,
  getGroupware,
  getInstance,
  getPool,
  GROUPWARE,
  INSTANCE,
  POOL,
  poolInstances,
  staleContext,
  unclaimed,
  writes,
} from './fleet-support.js';
import {
  type GroupwareOperator,
  groupwareObject,
  startGroupwareApiServer,
  startGroupwareOperator,
  WITHOUT_INSTANCE_RECONCILER,
} from './support.js';

/*
 * Two Groupware objects never claim the same instance: the claim is a merge patch carrying the
 * resourceVersion the candidate was read at, and the API server refuses a stale one with 409.
 * Groupware objects that find no Ready instance left create their own rather than wait.
 */

const POOL_SIZE = 3;
const TENANTS = 8;

describe('Groupware claims under concurrency', () => {
  let server: FakeKubeApiServer;
  let operator: GroupwareOperator;
  let api: KubeClient;

  beforeAll(async () => {
    server = await startGroupwareApiServer();
    api = KubeClient.fromKubeConfig(server.kubeConfig());
    operator = await startGroupwareOperator(server, { reconcilers: WITHOUT_INSTANCE_RECONCILER });
    await createPool(
      api,
      'rush',
      { profile: 'standard', size: POOL_SIZE, namespace: 'pool-rush' },
      { lane: 'rush' },
    );
    await fillPool(server, 'rush', POOL_SIZE);
    await eventually(() => getPool(server, 'rush')?.status?.ready === POOL_SIZE, 'pool full');
  });

  afterAll(async () => {
    await operator?.close();
    await server?.stop();
  });

  it('gives each Ready instance to at most one Groupware; the rest create their own, and the pool refills', async () => {
    const warm = unclaimed(poolInstances(server, 'rush')).map((instance) => instance.metadata.name);
    const names = Array.from({ length: TENANTS }, (_, index) => `gw-${index}`);
    await Promise.all(
      names.map((name) =>
        api.create(
          GROUPWARE,
          groupwareObject(
            'Groupware',
            name,
            { profile: 'standard', poolSelector: { matchLabels: { lane: 'rush' } } },
            'tenants',
          ),
        ),
      ),
    );
    const groupwares = await eventually(
      () => names.map((name) => getGroupware(server, 'tenants', name)),
      (list) => list.every((groupware) => groupware?.status?.instanceRef !== undefined),
      'every Groupware bound',
    );
    await operator.settled();

    const claimers = groupwares.filter((groupware) => groupware!.status!.claimedFromPool);
    const creators = groupwares.filter((groupware) => !groupware!.status!.claimedFromPool);
    expect(claimers).toHaveLength(POOL_SIZE);
    expect(creators).toHaveLength(TENANTS - POOL_SIZE);
    // Each warm instance went to exactly one Groupware, and its label names that one.
    expect(claimers.map((groupware) => groupware!.status!.instanceRef!.name).sort()).toEqual(
      [...warm].sort(),
    );
    for (const groupware of claimers) {
      // A claimer has no instance of its own besides.
      expect(getInstance(server, 'tenants', groupware!.metadata.name!)).toBeUndefined();
      const ref = groupware!.status!.instanceRef!;
      expect(getInstance(server, ref.namespace, ref.name)!.metadata.labels![CLAIMED_BY_LABEL]).toBe(
        `tenants.${groupware!.metadata.name}`,
      );
    }
    for (const groupware of creators) {
      expect(groupware!.status!.instanceRef).toEqual({
        namespace: 'tenants',
        name: groupware!.metadata.name,
      });
      expect(getInstance(server, 'tenants', groupware!.metadata.name!)).toBeDefined();
    }
    // Nobody else's claim: no instance of the pool carries a label naming another Groupware.
    const claimedNow = poolInstances(server, 'rush').filter(
      (instance) => instance.metadata.labels?.[CLAIMED_BY_LABEL],
    );
    expect(claimedNow).toHaveLength(POOL_SIZE);

    // The pool refills to its size with fresh instances.
    await eventually(
      () => unclaimed(poolInstances(server, 'rush')).length === POOL_SIZE,
      'the pool refilled',
    );
    await eventually(() => getPool(server, 'rush')?.status?.claimed === POOL_SIZE, 'claimed 3');
    expect(getPool(server, 'rush')!.status).toMatchObject({
      ready: 0,
      claimed: POOL_SIZE,
      creating: POOL_SIZE,
    });
  });
});

describe('Groupware claim against a stale cache', () => {
  let server: FakeKubeApiServer;
  let operator: GroupwareOperator;
  let api: KubeClient;

  beforeAll(async () => {
    server = await startGroupwareApiServer();
    api = KubeClient.fromKubeConfig(server.kubeConfig());
    operator = await startGroupwareOperator(server, { reconcilers: WITHOUT_INSTANCE_RECONCILER });
    await createPool(
      api,
      'stale',
      { profile: 'standard', size: 2, namespace: 'pool-stale' },
      { lane: 'stale' },
    );
    await fillPool(server, 'stale', 2);
    await operator.settled();
    // From here on the test reconciles by hand, against a cache it keeps stale on purpose.
    await operator.close();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('is refused with 409 for an instance claimed since the cache saw it, and claims the next one', async () => {
    const context = staleContext(server, api, [INSTANCE, POOL]);
    const [first, second] = unclaimed(poolInstances(server, 'stale')).sort(
      (a, b) =>
        String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)) ||
        a.metadata.name!.localeCompare(b.metadata.name!),
    );
    // A rival claims the oldest instance, which the snapshot still shows unclaimed.
    await api.mergePatch(INSTANCE, 'pool-stale', first.metadata.name!, {
      metadata: {
        resourceVersion: first.metadata.resourceVersion,
        labels: { [CLAIMED_BY_LABEL]: 'rivals.first' },
      },
    });
    const groupware = await api.create<Groupware>(
      GROUPWARE,
      groupwareObject(
        'Groupware',
        'late',
        { profile: 'standard', poolSelector: { matchLabels: { lane: 'stale' } } },
        'tenants',
      ) as Groupware,
    );
    server.clearRequests();
    const reconciler = new GroupwareReconciler();
    await reconciler.reconcile(groupware, context);

    const claims = server.requests.filter(
      (request) => request.method === 'PATCH' && request.kind === 'GroupwareInstance',
    );
    // The stale claim of the first is refused; the reconciler reads it, sees the rival's label
    // and moves on to the second.
    expect(claims.map((request) => request.name)).toEqual([
      first.metadata.name,
      second.metadata.name,
    ]);
    expect(getInstance(server, 'pool-stale', first.metadata.name!)!.metadata.labels).toMatchObject({
      [CLAIMED_BY_LABEL]: 'rivals.first',
    });
    expect(getInstance(server, 'pool-stale', second.metadata.name!)!.metadata.labels).toMatchObject(
      { [CLAIMED_BY_LABEL]: 'tenants.late' },
    );
    expect(getGroupware(server, 'tenants', 'late')!.status).toMatchObject({
      phase: 'Ready',
      claimedFromPool: 'stale',
      instanceRef: { namespace: 'pool-stale', name: second.metadata.name },
    });

    // Reconciled again before the cache shows its claim (or its status): the server's word
    // binds it to the same instance, and nothing more is claimed or written.
    server.clearRequests();
    await reconciler.reconcile(groupware, context);
    expect(writes(server)).toEqual([]);
  });

  it('creates its own instance once, though the cache shows neither it nor the status', async () => {
    const context = staleContext(server, api, [INSTANCE, POOL]);
    const groupware = await api.create<Groupware>(
      GROUPWARE,
      groupwareObject('Groupware', 'own', { profile: 'standard' }, 'tenants') as Groupware,
    );
    server.clearRequests();
    const reconciler = new GroupwareReconciler();
    await reconciler.reconcile(groupware, context);
    await reconciler.reconcile(groupware, context);
    expect(writes(server)).toEqual(['POST GroupwareInstance', 'PATCH Groupware/status own']);
    expect(getGroupware(server, 'tenants', 'own')!.status!.instanceRef).toEqual({
      namespace: 'tenants',
      name: 'own',
    });
  });
});
