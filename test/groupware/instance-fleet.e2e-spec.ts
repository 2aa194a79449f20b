import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GroupwareInstance, GroupwareKindRefs, occJobName } from '@platform/groupware';
import { CoreKinds, type KubeObject, ThirdPartyKinds } from '@platform/kube';
import { eventually } from '@platform/testing';
import {
  createPool,
  getGroupware,
  GROUPWARE,
  poolInstances,
  PROFILE,
  unclaimed,
} from './fleet-support.js';
import {
  createInstance,
  type InstanceTest,
  settleRelease,
  startInstanceTest,
  waitForPhase,
} from './instance-support.js';
import { putSharedSecret, SECRET_NAMESPACE, talkJobs, talkServer } from './talk-support.js';
import { groupwareObject } from './support.js';

/*
 * The whole operator: pools and Groupware objects on top of the GroupwareInstance reconciler,
 * with the test playing only Flux and the Job controller.
 */

const POOL_NS = 'fleet-pool';

describe('GroupwareInstance reconciler under pools and Groupware', () => {
  let test: InstanceTest;
  const api = () => test.operator.client;

  /** Flux installs every release that is not Ready for its generation. */
  const playFlux = () => {
    for (const release of test.server.list<KubeObject>(ThirdPartyKinds.HelmRelease)) {
      const status = release.status as { observedGeneration?: number } | undefined;
      if (status?.observedGeneration === release.metadata.generation) continue;
      settleRelease(test.server, release.metadata.namespace!, release.metadata.name!, {
        ready: true,
      });
    }
  };

  beforeAll(async () => {
    test = await startInstanceTest();
    await api().create(
      PROFILE,
      groupwareObject('GroupwareProfile', 'standard', {
        defaults: { persistence: { enabled: true } },
      }) as KubeObject,
    );
    await createPool(
      api(),
      'standard-eu',
      { profile: 'standard', size: 1, namespace: POOL_NS, template: { version: '29' } },
      { region: 'eu' },
    );
  });

  afterAll(async () => {
    await test.close();
  });

  it('fills a pool with an instance made Ready by its release', async () => {
    const [instance] = await eventually(
      () => poolInstances(test.server, 'standard-eu'),
      (list) => list.length === 1 && list[0]!.status?.phase === 'Creating',
      { what: 'the pooled instance Creating' },
    );
    playFlux();
    await eventually(
      () => poolInstances(test.server, 'standard-eu'),
      (list) => list[0]?.status?.phase === 'Ready',
      { what: `${instance!.metadata.name} Ready` },
    );
  });

  it('lets a Groupware claim it; the claimed instance applies the tenant’s apps', async () => {
    const [pooled] = poolInstances(test.server, 'standard-eu');
    await api().create(
      GROUPWARE,
      groupwareObject(
        'Groupware',
        'mail',
        {
          profile: 'standard',
          poolSelector: { matchLabels: { region: 'eu' } },
          apps: { calendar: { enabled: true } },
        },
        'tenant-a',
      ),
    );
    const groupware = await eventually(
      () => getGroupware(test.server, 'tenant-a', 'mail'),
      (found) => found?.status?.phase === 'Ready',
      { what: 'the Groupware Ready' },
    );
    expect(groupware!.status!.instanceRef).toEqual({
      namespace: POOL_NS,
      name: pooled!.metadata.name,
    });
    await eventually(
      () =>
        test.server.get(
          CoreKinds.Job,
          POOL_NS,
          occJobName(pooled!.metadata.name!, [['app:enable', 'calendar']]),
        ),
      { what: 'the calendar Job on the claimed instance' },
    );
    // The pool refills with a new instance, which its release makes Ready in turn.
    await eventually(
      () => unclaimed(poolInstances(test.server, 'standard-eu')),
      (list) => list.length === 1 && list[0]!.status?.phase === 'Creating',
      { what: 'the refill Creating' },
    );
    playFlux();
    await eventually(
      () => unclaimed(poolInstances(test.server, 'standard-eu')),
      (list) => list[0]?.status?.phase === 'Ready',
      { what: 'the refill Ready' },
    );
  });

  it('serves a Groupware without a matching pool with its own instance', async () => {
    await api().create(
      GROUPWARE,
      groupwareObject('Groupware', 'files', { profile: 'standard' }, 'tenant-b'),
    );
    await eventually(
      () => test.server.get<GroupwareInstance>(ThirdPartyKinds.HelmRelease, 'tenant-b', 'files'),
      { what: 'the release of the Groupware’s own instance' },
    );
    playFlux();
    const groupware = await eventually(
      () => getGroupware(test.server, 'tenant-b', 'files'),
      (found) => found?.status?.phase === 'Ready',
      { what: 'the Groupware Ready' },
    );
    expect(groupware!.status!.instanceRef).toEqual({ namespace: 'tenant-b', name: 'files' });
  });

  it('has a SignalingServer register with an instance running Talk once it is Ready', async () => {
    putSharedSecret(test.server, 'hpb-secret', 'shared');
    await api().create(
      GroupwareKindRefs.SignalingServer,
      talkServer('SignalingServer', 'hpb', {
        url: 'https://signaling.example.com',
        secretRef: { name: 'hpb-secret', namespace: SECRET_NAMESPACE },
      }),
    );
    await createInstance(test, 'team-talk', 'talk', {
      persistence: { enabled: true },
      apps: { spreed: { enabled: true } },
    });
    await waitForPhase(test, 'team-talk', 'talk', 'Creating');
    expect(talkJobs(test.server, 'signaling')).toEqual([]);
    playFlux();
    const [registration] = await eventually(
      () => talkJobs(test.server, 'signaling'),
      (jobs) => jobs.length === 1,
      { what: 'the registration Job' },
    );
    expect(registration!.metadata.namespace).toBe('team-talk');
    expect(registration!.spec!.template.spec.containers[0]!.image).toBe('nextcloud:29.0.16');
  });
});
