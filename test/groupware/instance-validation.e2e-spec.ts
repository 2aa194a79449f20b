import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeObject, ThirdPartyKinds } from '@platform/kube';
import { groupwareObject } from './support.js';
import {
  conditionOf,
  createInstance,
  eventReasons,
  type InstanceTest,
  ProfileKind,
  releaseOf,
  startInstanceTest,
  waitForPhase,
} from './instance-support.js';

const NS = 'gwi-validation';

describe('GroupwareInstance: specs the schema cannot refuse, and profiles', () => {
  let test: InstanceTest;

  beforeAll(async () => {
    test = await startInstanceTest();
  });

  afterAll(async () => {
    await test.close();
  });

  it.each([
    [
      'a profile that does not exist',
      'no-profile',
      { profile: 'gold' },
      'spec.profile: GroupwareProfile "gold" does not exist',
    ],
    [
      'a version the table does not know',
      'old-version',
      { version: '27' },
      'spec.version: "27" is not a known version (known majors: 28, 29, 30, 31)',
    ],
    [
      'apps without persistence',
      'apps-no-volume',
      { apps: { calendar: { enabled: true } } },
      'spec.apps: app management needs spec.persistence.enabled: true',
    ],
    [
      'a managed MySQL database',
      'managed-mysql',
      { database: { managed: true, type: 'mysql' as const } },
      'spec.database.type: a managed database is PostgreSQL, not mysql',
    ],
  ])(
    'fails %s with InvalidSpec naming the field, writing no release',
    async (_, name, spec, message) => {
      await createInstance(test, NS, name, spec);
      const failed = await waitForPhase(test, NS, name, 'Failed');
      expect(conditionOf(failed, 'InvalidSpec')).toMatchObject({
        status: 'True',
        reason: 'InvalidSpec',
        message,
      });
      expect(conditionOf(failed, 'Ready')).toMatchObject({
        status: 'False',
        reason: 'InvalidSpec',
      });
      expect(test.server.get(ThirdPartyKinds.HelmRelease, NS, name)).toBeUndefined();
      expect(eventReasons(test.server, NS, name)).toEqual(['Pending', 'Warning/InvalidSpec']);
    },
  );

  it('goes on once the named profile exists, with its defaults under the instance spec', async () => {
    await test.operator.client.create(
      ProfileKind,
      groupwareObject('GroupwareProfile', 'gold', {
        defaults: {
          replicaCount: 2,
          persistence: { enabled: true, size: '10Gi', storageClass: 'standard' },
          resources: { requests: { cpu: '1', memory: '2Gi' } },
        },
        helm: { version: '5.5.4' },
      }) as KubeObject,
    );
    await test.operator.advance({ seconds: 61 });
    const creating = await waitForPhase(test, NS, 'no-profile', 'Creating');
    expect(conditionOf(creating, 'InvalidSpec')).toBeUndefined();
    const release = await releaseOf(test, NS, 'no-profile');
    expect((release.spec as { chart: { spec: { version: string } } }).chart.spec.version).toBe(
      '5.5.4',
    );
    expect(release.spec!.values).toMatchObject({
      replicaCount: 2,
      persistence: { enabled: true, size: '10Gi', storageClass: 'standard' },
      resources: { requests: { cpu: '1', memory: '2Gi' } },
    });
  });
});
