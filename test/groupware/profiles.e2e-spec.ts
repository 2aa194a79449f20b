import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PROFILE_IN_USE_FINALIZER } from '@platform/groupware';
import { KubeClient } from '@platform/kube';
import { eventually, type FakeKubeApiServer } from '@platform/testing';
import { getProfile, INSTANCE, PROFILE, reconciles } from './fleet-support.js';
import {
  type GroupwareOperator,
  groupwareObject,
  OPERATOR_CLOCK_START,
  RESYNC_PERIOD_SECONDS,
  startGroupwareApiServer,
  startGroupwareOperator,
  WITHOUT_INSTANCE_RECONCILER,
} from './support.js';

describe('GroupwareProfile: instance count and the in-use finalizer', () => {
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

  const createProfile = (name: string) =>
    api.create(PROFILE, groupwareObject('GroupwareProfile', name, { description: name }));
  const createInstance = (namespace: string, name: string, profile: string) =>
    api.create(INSTANCE, groupwareObject('GroupwareInstance', name, { profile }, namespace));
  const instancesOf = (name: string) => getProfile(server, name)?.status?.instances;

  it('adds its finalizer and counts the instances naming it as they come and go', async () => {
    await createProfile('counted');
    await eventually(() => instancesOf('counted') === 0, 'status.instances 0');
    expect(getProfile(server, 'counted')!.metadata.finalizers).toEqual([PROFILE_IN_USE_FINALIZER]);
    expect(getProfile(server, 'counted')!.status).toEqual({ instances: 0, observedGeneration: 1 });

    await createInstance('team-a', 'one', 'counted');
    await createInstance('team-b', 'two', 'counted');
    await createInstance('team-a', 'other', 'someone-else');
    await eventually(() => instancesOf('counted') === 2, 'status.instances 2');

    // An instance moving to another profile leaves this one's count.
    await api.mergePatch(INSTANCE, 'team-b', 'two', { spec: { profile: 'someone-else' } });
    await eventually(() => instancesOf('counted') === 1, 'status.instances 1 after the move');

    await api.delete(INSTANCE, 'team-a', 'one');
    await eventually(() => instancesOf('counted') === 0, 'status.instances 0 after the delete');
    await operator.settled();
    expect(getProfile(server, 'counted')!.status).toEqual({ instances: 0, observedGeneration: 1 });
  });

  it('blocks its deletion with a condition naming the instances, until the last is gone', async () => {
    await createProfile('held');
    await createInstance('team-a', 'held-a', 'held');
    await createInstance('team-b', 'held-b', 'held');
    await eventually(() => instancesOf('held') === 2, 'status.instances 2');

    await api.delete(PROFILE, undefined, 'held');
    const blocked = await eventually(
      () => getProfile(server, 'held'),
      (profile) => profile?.status?.conditions !== undefined,
      'the DeletionBlocked condition',
    );
    expect(blocked!.metadata.deletionTimestamp).toBeDefined();
    expect(blocked!.metadata.finalizers).toEqual([PROFILE_IN_USE_FINALIZER]);
    expect(blocked!.status).toEqual({
      instances: 2,
      observedGeneration: blocked!.metadata.generation,
      conditions: [
        {
          type: 'DeletionBlocked',
          status: 'True',
          reason: 'InUse',
          message: 'in use by instances team-a/held-a, team-b/held-b',
          lastTransitionTime: OPERATOR_CLOCK_START,
        },
      ],
    });

    await api.delete(INSTANCE, 'team-a', 'held-a');
    await eventually(
      () => getProfile(server, 'held')?.status?.conditions?.[0].message,
      (message) => message === 'in use by instance team-b/held-b',
      'the condition naming the one instance left',
    );
    expect(getProfile(server, 'held')!.status!.instances).toBe(1);

    await api.delete(INSTANCE, 'team-b', 'held-b');
    await eventually(() => getProfile(server, 'held') === undefined, 'the profile deleted');
  });

  it('is deleted at once when no instance names it', async () => {
    await createProfile('unused');
    await eventually(() => instancesOf('unused') === 0, 'reconciled');
    await api.delete(PROFILE, undefined, 'unused');
    await eventually(() => getProfile(server, 'unused') === undefined, 'the profile deleted');
  });

  it('writes nothing when a resync finds the counts unchanged', async () => {
    await createProfile('steady');
    await createInstance('team-c', 'steady-a', 'steady');
    await eventually(() => instancesOf('steady') === 1, 'status.instances 1');
    await operator.settled();
    server.clearRequests();
    const before = await reconciles(operator, 'GroupwareProfile');
    await operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    expect(await reconciles(operator, 'GroupwareProfile')).toBeGreaterThan(before);
    expect(server.mutations({ kind: 'GroupwareProfile' })).toBe(0);
    expect(server.mutations()).toBe(0);
  });
});
