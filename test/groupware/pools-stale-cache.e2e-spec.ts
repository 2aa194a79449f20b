import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GroupwarePool, GroupwarePoolReconciler } from '@platform/groupware';
import { KubeClient } from '@platform/kube';
import type { FakeKubeApiServer } from '@platform/testing';
import {
  createPool,
  getPool,
  INSTANCE,
  POOL,
  poolInstances,
  staleContext,
  writes,
} from './fleet-support.js';
import { startGroupwareApiServer } from './support.js';

/*
 * The watch event of an instance a pool created may come after the pool's next reconcile:
 * the reconciler counts its own creates and deletes until its cache shows them, so a lagging
 * cache makes it neither overshoot nor delete twice.
 */
describe('GroupwarePool against a cache that lags its own writes', () => {
  let server: FakeKubeApiServer;
  let api: KubeClient;

  beforeAll(async () => {
    server = await startGroupwareApiServer();
    api = KubeClient.fromKubeConfig(server.kubeConfig());
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('creates size instances once over reconciles that do not see them, and deletes each surplus one once', async () => {
    const pool = (await createPool(api, 'lagging', {
      size: 3,
      namespace: 'pool-lag',
    })) as GroupwarePool;
    const reconciler = new GroupwarePoolReconciler();
    const empty = staleContext(server, api, [INSTANCE, POOL]);
    await reconciler.reconcile(pool, empty);
    await reconciler.reconcile(pool, empty);
    await reconciler.reconcile(pool, empty);
    expect(poolInstances(server, 'lagging')).toHaveLength(3);
    expect(
      writes(server).filter((write) => write.startsWith('POST GroupwareInstance')),
    ).toHaveLength(3);
    expect(getPool(server, 'lagging')!.status).toMatchObject({ ready: 0, creating: 3 });

    // Size 1, and a cache that shows the three but not the deletes that follow.
    const shrunk = { ...pool, spec: { ...pool.spec!, size: 1 } };
    const withThree = staleContext(server, api, [INSTANCE, POOL]);
    server.clearRequests();
    await reconciler.reconcile(shrunk, withThree);
    await reconciler.reconcile(shrunk, withThree);
    expect(writes(server).filter((write) => write.startsWith('DELETE'))).toHaveLength(2);
    expect(poolInstances(server, 'lagging')).toHaveLength(1);
    expect(writes(server).filter((write) => write.startsWith('POST'))).toEqual([]);
  });
});
