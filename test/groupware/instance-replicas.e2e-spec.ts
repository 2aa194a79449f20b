import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { eventually, FakeClock, type FakeKubeApiServer } from '@platform/testing';
import { OPERATOR_CLOCK_START, startGroupwareApiServer } from './support.js';
import {
  createInstance,
  instanceOf,
  type OperatorReplica,
  settleRelease,
  startInstanceTest,
  startOperatorReplica,
  type InstanceTest,
  waitForPhase,
} from './instance-support.js';

const NS = 'gwi-replicas';

describe('GroupwareInstance operator: two replicas', () => {
  let server: FakeKubeApiServer;
  const replicas: OperatorReplica[] = [];
  const phaseOf = (name: string) => instanceOf(server, NS, name)?.status?.phase;

  beforeEach(async () => {
    server = await startGroupwareApiServer();
  });

  afterEach(async () => {
    for (const replica of replicas.splice(0)) await replica.close();
    await server.stop();
  });

  it('lets only the leader write; the other takes over when it stops', async () => {
    const clock = new FakeClock(OPERATOR_CLOCK_START);
    replicas.push(await startOperatorReplica(server, 'replica-a', clock));
    replicas.push(await startOperatorReplica(server, 'replica-b', clock));
    const leader = await eventually(() => replicas.find((replica) => replica.runtime.isLeader), {
      what: 'a leader',
    });
    const follower = replicas.find((replica) => replica !== leader)!;
    expect(follower.runtime.isLeader).toBe(false);

    await createInstance(leader.runtime.client, NS, 'first', {});
    await eventually(() => phaseOf('first') === 'Creating', { what: 'first Creating' });
    await leader.runtime.idle();
    expect(leader.writes).toEqual(
      expect.arrayContaining([
        'create HelmRelease/first',
        'mergePatchStatus GroupwareInstance/first',
      ]),
    );
    expect(follower.writes).toEqual([]);

    await leader.close();
    replicas.splice(replicas.indexOf(leader), 1);
    await eventually(() => follower.runtime.isLeader, { what: 'the take-over' });
    settleRelease(server, NS, 'first', { ready: true });
    await eventually(() => phaseOf('first') === 'Ready', { what: 'first Ready' });
    expect(follower.writes).toContain('mergePatchStatus GroupwareInstance/first');
  });
});

describe('GroupwareInstance operator: a watch broken with 410 Gone', () => {
  let test: InstanceTest;

  beforeEach(async () => {
    test = await startInstanceTest();
  });

  afterEach(async () => {
    await test.close();
  });

  it('relists and carries on with what changed meanwhile', async () => {
    await createInstance(test, NS, 'before', {});
    await waitForPhase(test, NS, 'before', 'Creating');
    test.server.clearRequests();
    test.server.expireWatches();
    // Informers answer 410 with a fresh list, then watch from its resourceVersion.
    await eventually(() =>
      test.server.requests.some(
        (request) =>
          request.kind === 'GroupwareInstance' &&
          request.method === 'GET' &&
          request.name === undefined &&
          request.query.watch !== 'true',
      ),
    );
    settleRelease(test.server, NS, 'before', { ready: true });
    await createInstance(test, NS, 'after', {});
    await waitForPhase(test, NS, 'before', 'Ready');
    await waitForPhase(test, NS, 'after', 'Creating');
  });
});
