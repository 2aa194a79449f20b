import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@platform/testing';
import {
  conditionOf,
  createInstance,
  eventReasons,
  type InstanceTest,
  instanceOf,
  releaseOf,
  settleRelease,
  startInstanceTest,
  updateSpec,
  waitForPhase,
} from './instance-support.js';

const NS = 'gwi-updates';

const imageTag = async (test: InstanceTest) =>
  ((await releaseOf(test, NS, 'team')).spec!.values as { image: { tag: string } }).image.tag;

describe('GroupwareInstance: a version before the first install', () => {
  let test: InstanceTest;

  beforeAll(async () => {
    test = await startInstanceTest();
  });

  afterAll(async () => {
    await test.close();
  });

  it('may be corrected to any known version while nothing is installed', async () => {
    await createInstance(test, NS, 'typo', { version: '31' });
    await waitForPhase(test, NS, 'typo', 'Creating');
    await updateSpec(test, NS, 'typo', (spec) => ({ ...spec, version: '29' }));
    const corrected = await eventually(
      () => instanceOf(test.server, NS, 'typo'),
      (instance) => instance?.status?.versionResolution?.resolvedVersion === '29.0.16',
      { what: 'the corrected version' },
    );
    expect(conditionOf(corrected, 'UpgradeBlocked')).toBeUndefined();
  });
});

describe('GroupwareInstance: spec changes, upgrades and release failures', () => {
  let test: InstanceTest;

  beforeAll(async () => {
    test = await startInstanceTest();
    await createInstance(test, NS, 'team', { version: '29' });
    await waitForPhase(test, NS, 'team', 'Creating');
    settleRelease(test.server, NS, 'team', { ready: true });
    await waitForPhase(test, NS, 'team', 'Ready');
  });

  afterAll(async () => {
    await test.close();
  });

  it('goes Updating on a spec change and back to Ready once Flux applied it', async () => {
    await updateSpec(test, NS, 'team', (spec) => ({ ...spec, replicas: 3 }));
    const updating = await waitForPhase(test, NS, 'team', 'Updating');
    expect(updating.status?.observedGeneration).toBe(2);
    expect(conditionOf(updating, 'Ready')).toMatchObject({ status: 'False', reason: 'Updating' });
    const release = await releaseOf(test, NS, 'team');
    expect((release.spec!.values as { replicaCount: number }).replicaCount).toBe(3);
    expect(release.metadata.generation).toBe(2);

    settleRelease(test.server, NS, 'team', { ready: true });
    await waitForPhase(test, NS, 'team', 'Ready');
    expect(eventReasons(test.server, NS, 'team')).toEqual([
      'Pending',
      'Creating',
      'Ready',
      'Updating',
      'Ready',
    ]);
  });

  it('removes from the release what the spec no longer sets', async () => {
    await updateSpec(test, NS, 'team', (spec) => ({
      ...spec,
      ingress: { enabled: true, host: 'team.example.com' },
    }));
    await eventually(
      () => releaseOf(test, NS, 'team'),
      (release) => (release.spec!.values as { ingress?: object }).ingress !== undefined,
    );
    settleRelease(test.server, NS, 'team', { ready: true });
    await waitForPhase(test, NS, 'team', 'Ready');
    await updateSpec(test, NS, 'team', (spec) => ({ ...spec, ingress: undefined }));
    const release = await eventually(
      () => releaseOf(test, NS, 'team'),
      (live) => (live.spec!.values as { ingress?: object }).ingress === undefined,
      { what: 'the ingress values removed' },
    );
    expect(
      (release.spec!.values as { nextcloud: { host?: string } }).nextcloud.host,
    ).toBeUndefined();
    settleRelease(test.server, NS, 'team', { ready: true });
    await eventually(
      () => instanceOf(test.server, NS, 'team'),
      (instance) => instance?.status?.phase === 'Ready' && instance.status.url === undefined,
      { what: 'Ready without a URL' },
    );
  });

  it('blocks a skipped major: UpgradeBlocked, the release keeps its tag', async () => {
    await updateSpec(test, NS, 'team', (spec) => ({ ...spec, version: '31' }));
    const blocked = await eventuallyBlocked(test);
    expect(conditionOf(blocked, 'UpgradeBlocked')).toMatchObject({
      status: 'True',
      reason: 'UpgradeBlocked',
      message:
        'spec.version: upgrade from 29.0.16 to 31.0.9 skips a major; upgrade to 30 first (the instance keeps running 29.0.16)',
    });
    expect(blocked.status).toMatchObject({
      phase: 'Ready',
      versionResolution: { requestedVersion: '29', resolvedVersion: '29.0.16' },
    });
    expect(await imageTag(test)).toBe('29.0.16');
    expect(eventReasons(test.server, NS, 'team').at(-1)).toBe('Warning/UpgradeBlocked');
  });

  it('upgrades to the next major, clearing UpgradeBlocked', async () => {
    await updateSpec(test, NS, 'team', (spec) => ({ ...spec, version: '30' }));
    const updating = await waitForPhase(test, NS, 'team', 'Updating');
    expect(conditionOf(updating, 'UpgradeBlocked')).toBeUndefined();
    expect(updating.status?.versionResolution).toEqual({
      requestedVersion: '30',
      resolvedVersion: '30.0.17',
      chartVersion: '6.6.10',
      resolvedBy: 'builtin',
    });
    expect(await imageTag(test)).toBe('30.0.17');
    settleRelease(test.server, NS, 'team', { ready: true });
    await waitForPhase(test, NS, 'team', 'Ready');
  });

  it('refuses a downgrade the same way', async () => {
    await updateSpec(test, NS, 'team', (spec) => ({ ...spec, version: '29' }));
    const blocked = await eventuallyBlocked(test);
    expect(conditionOf(blocked, 'UpgradeBlocked')?.message).toBe(
      'spec.version: downgrade from 30.0.17 to 29.0.16 refused; the instance keeps running 30.0.17',
    );
    expect(await imageTag(test)).toBe('30.0.17');
    await updateSpec(test, NS, 'team', (spec) => ({ ...spec, version: '30' }));
    await eventuallyUnblocked(test);
  });

  it('fails with ReleaseFailed when Flux gives up, and recovers when the release is Ready again', async () => {
    await updateSpec(test, NS, 'team', (spec) => ({ ...spec, replicas: 2 }));
    await waitForPhase(test, NS, 'team', 'Updating');
    settleRelease(test.server, NS, 'team', {
      ready: false,
      reason: 'UpgradeFailed',
      message: 'Helm upgrade failed: timed out waiting for the condition',
    });
    const failed = await waitForPhase(test, NS, 'team', 'Failed');
    expect(conditionOf(failed, 'ReleaseFailed')).toMatchObject({
      status: 'True',
      reason: 'ReleaseFailed',
      message:
        'HelmRelease team: UpgradeFailed: Helm upgrade failed: timed out waiting for the condition',
    });
    expect(conditionOf(failed, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReleaseFailed',
    });
    expect(eventReasons(test.server, NS, 'team').at(-1)).toBe('Warning/ReleaseFailed');

    // A fixed spec after a failed upgrade is an update again.
    await updateSpec(test, NS, 'team', (spec) => ({ ...spec, replicas: 1 }));
    await waitForPhase(test, NS, 'team', 'Updating');
    settleRelease(test.server, NS, 'team', { ready: true });
    const ready = await waitForPhase(test, NS, 'team', 'Ready');
    expect(conditionOf(ready, 'ReleaseFailed')).toBeUndefined();
  });
});

async function eventuallyBlocked(test: InstanceTest) {
  const blocked = await eventually(
    () => instanceOf(test.server, NS, 'team'),
    (instance) => conditionOf(instance, 'UpgradeBlocked') !== undefined,
    { what: 'UpgradeBlocked' },
  );
  await test.operator.settled();
  return instanceOf(test.server, NS, 'team') ?? blocked!;
}

async function eventuallyUnblocked(test: InstanceTest) {
  await eventually(
    () => instanceOf(test.server, NS, 'team'),
    (instance) => conditionOf(instance, 'UpgradeBlocked') === undefined,
    { what: 'UpgradeBlocked cleared' },
  );
}
