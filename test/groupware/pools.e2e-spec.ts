import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CLAIMED_BY_LABEL, type GroupwareInstance, POOL_LABEL } from '@platform/groupware';
import { KubeClient } from '@platform/kube';
import { eventually, type FakeKubeApiServer } from '@platform/testing';
import {
  createPool,
  fillPool,
  getPool,
  INSTANCE,
  markReady,
  POOL,
  poolInstances,
  reconciles,
  unclaimed,
} from './fleet-support.js';
import {
  type GroupwareOperator,
  OPERATOR_CLOCK_START,
  RESYNC_PERIOD_SECONDS,
  startGroupwareApiServer,
  startGroupwareOperator,
  WITHOUT_INSTANCE_RECONCILER,
} from './support.js';

describe('GroupwarePool: warm instances, refill and shrink', () => {
  let server: FakeKubeApiServer;
  let operator: GroupwareOperator;
  let api: KubeClient;

  beforeAll(async () => {
    server = await startGroupwareApiServer();
    api = KubeClient.fromKubeConfig(server.kubeConfig());
    operator = await startGroupwareOperator(server, { reconcilers: WITHOUT_INSTANCE_RECONCILER });
  });

  afterAll(async () => {
    await operator?.close();
    await server?.stop();
  });

  /** Plays a Groupware's claim: the label, and the pool's ownerReference dropped. */
  const claim = (instance: GroupwareInstance, by: string) =>
    api.mergePatch(INSTANCE, instance.metadata.namespace, instance.metadata.name!, {
      metadata: { labels: { [CLAIMED_BY_LABEL]: by }, ownerReferences: null },
    });

  it('creates size instances from the template with the pool profile, labelled and owned, and does not overshoot', async () => {
    const pool = await createPool(api, 'warm', {
      profile: 'standard',
      size: 2,
      namespace: 'pool-warm',
      template: { version: '29', replicas: 2, profile: 'ignored' },
    });
    const instances = await eventually(
      () => poolInstances(server, 'warm'),
      (list) => list.length === 2,
      'two instances',
    );
    for (const instance of instances) {
      expect(instance.metadata.name).toMatch(/^warm-[a-z0-9]{5}$/);
      expect(instance.metadata.namespace).toBe('pool-warm');
      expect(instance.metadata.labels).toEqual({ [POOL_LABEL]: 'warm' });
      expect(instance.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'k8s.neutral.com/v1alpha1',
          kind: 'GroupwarePool',
          name: 'warm',
          uid: pool.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(instance.spec).toMatchObject({ profile: 'standard', version: '29', replicas: 2 });
    }
    await operator.settled();
    expect(getPool(server, 'warm')!.status).toEqual({
      observedGeneration: 1,
      ready: 0,
      claimed: 0,
      creating: 2,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'Filling',
          message: '0 of 2 instances ready, 2 not ready yet',
          lastTransitionTime: OPERATOR_CLOCK_START,
        },
      ],
    });

    // Instances not Ready yet count toward the size: a resync creates none.
    await operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    expect(poolInstances(server, 'warm')).toHaveLength(2);
    expect(server.mutations({ kind: 'GroupwareInstance', namespace: 'pool-warm' })).toBe(2);
  });

  it('reports Ready instances and the Ready condition once the pool is full', async () => {
    await fillPool(server, 'warm', 2);
    await eventually(() => getPool(server, 'warm')?.status?.ready === 2, 'ready 2');
    expect(getPool(server, 'warm')!.status).toMatchObject({
      ready: 2,
      claimed: 0,
      creating: 0,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Filled',
          message: '2 of 2 instances ready, 0 not ready yet',
        },
      ],
    });
  });

  it('refills after a claim; the claimed instance no longer counts', async () => {
    const [first] = unclaimed(poolInstances(server, 'warm'));
    await claim(first, 'tenant-a.mail');
    const instances = await eventually(
      () => poolInstances(server, 'warm'),
      (list) => list.length === 3,
      'a third instance',
    );
    await eventually(() => getPool(server, 'warm')?.status?.claimed === 1, 'claimed 1');
    expect(getPool(server, 'warm')!.status).toMatchObject({ ready: 1, claimed: 1, creating: 1 });
    expect(unclaimed(instances)).toHaveLength(2);
    await operator.settled();
    expect(poolInstances(server, 'warm')).toHaveLength(3);
  });

  it('shrinks by deleting unclaimed instances, those not Ready first, never claimed ones', async () => {
    await api.mergePatch(POOL, undefined, 'warm', { spec: { size: 4 } });
    const grown = await eventually(
      () => unclaimed(poolInstances(server, 'warm')),
      (list) => list.length === 4,
      'four unclaimed instances',
    );
    // Two of the four Ready, two still creating.
    const notReady = grown.filter((instance) => instance.status?.phase !== 'Ready');
    markReady(server, notReady[0]);
    await eventually(() => getPool(server, 'warm')?.status?.ready === 2, 'ready 2 of 4');
    const stillCreating = unclaimed(poolInstances(server, 'warm')).filter(
      (instance) => instance.status?.phase !== 'Ready',
    );
    expect(stillCreating).toHaveLength(2);

    await api.mergePatch(POOL, undefined, 'warm', { spec: { size: 1 } });
    await eventually(
      () => unclaimed(poolInstances(server, 'warm')),
      (list) => list.length === 1,
      'one unclaimed instance',
    );
    const remaining = poolInstances(server, 'warm');
    expect(remaining).toHaveLength(2);
    expect(
      remaining.filter((instance) => instance.metadata.labels?.[CLAIMED_BY_LABEL]),
    ).toHaveLength(1);
    expect(unclaimed(remaining)[0].status?.phase).toBe('Ready');
    for (const gone of stillCreating) {
      expect(remaining.map((instance) => instance.metadata.name)).not.toContain(gone.metadata.name);
    }
    await eventually(() => getPool(server, 'warm')?.status?.creating === 0, 'creating 0');
    expect(getPool(server, 'warm')!.status).toMatchObject({
      observedGeneration: 3,
      ready: 1,
      claimed: 1,
      creating: 0,
    });

    // Size 0: no unclaimed instance is left; the claimed one stays.
    await api.mergePatch(POOL, undefined, 'warm', { spec: { size: 0 } });
    await eventually(
      () => poolInstances(server, 'warm'),
      (list) => list.length === 1,
      'only the claimed instance',
    );
    expect(poolInstances(server, 'warm')[0].metadata.labels?.[CLAIMED_BY_LABEL]).toBe(
      'tenant-a.mail',
    );
  });

  it('writes nothing when a resync finds the pool as it should be', async () => {
    await createPool(api, 'steady', { size: 2, namespace: 'pool-steady' });
    await fillPool(server, 'steady', 2);
    await eventually(() => getPool(server, 'steady')?.status?.ready === 2, 'ready 2');
    await operator.settled();
    server.clearRequests();
    const before = await reconciles(operator, 'GroupwarePool');
    await operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    expect(await reconciles(operator, 'GroupwarePool')).toBeGreaterThan(before);
    expect(server.mutations()).toBe(0);
  });

  it('creates nothing for a pool whose name is too long for its instances label, and says so', async () => {
    const name = `p${'o'.repeat(63)}`;
    await createPool(api, name, { size: 1, namespace: 'pool-long' });
    const pool = await eventually(
      () => getPool(server, name),
      (stored) => stored?.status?.conditions !== undefined,
      'the NameTooLong condition',
    );
    expect(pool!.status).toEqual({
      observedGeneration: 1,
      ready: 0,
      claimed: 0,
      creating: 0,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'NameTooLong',
          message: "the pool name has 64 characters; its instances' label takes at most 63",
          lastTransitionTime: operator.clock
            .now()
            .toISOString()
            .replace(/\.\d{3}Z$/, 'Z'),
        },
      ],
    });
    expect(server.list(INSTANCE, 'pool-long')).toEqual([]);
  });

  it('refuses a size outside 0..50 with 422', async () => {
    const refusal = await createPool(api, 'too-big', { size: 51, namespace: 'x' }).catch(
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ status: 422, reason: 'Invalid' });
  });
});
