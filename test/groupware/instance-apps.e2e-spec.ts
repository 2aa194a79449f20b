import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { occJobName } from '@platform/groupware';
import { CoreKinds, type KubeObject } from '@platform/kube';
import { eventually } from '@platform/testing';
import {
  conditionOf,
  createInstance,
  eventReasons,
  finishJob,
  type InstanceTest,
  instanceOf,
  occJobs,
  settleRelease,
  startInstanceTest,
  updateSpec,
  waitForPhase,
} from './instance-support.js';

const NS = 'gwi-apps';
const CALENDAR = occJobName('team', [['app:enable', 'calendar']]);
const OFFICE_COMMANDS = [
  ['app:enable', 'richdocuments'],
  ['config:app:set', 'richdocuments', 'wopi_url', '--value=https://office.example.com'],
];
const OFFICE = occJobName('team', OFFICE_COMMANDS);

type Job = KubeObject<{
  template: { spec: { containers: Array<{ image: string; command: string[]; env?: unknown[] }> } };
}>;

describe('GroupwareInstance: apps through occ Jobs', () => {
  let test: InstanceTest;
  const now = () => test.operator.clock.now().toISOString();
  const jobNames = () => occJobs(test.server, NS, 'team').map((job) => job.metadata.name);
  const waitForJob = (name: string) =>
    eventually(() => test.server.get<Job>(CoreKinds.Job, NS, name), { what: `Job ${name}` });

  beforeAll(async () => {
    test = await startInstanceTest();
    await createInstance(test, NS, 'team', {
      persistence: { enabled: true },
      apps: {
        calendar: { enabled: true },
        richdocuments: { enabled: true, wopiUrl: 'https://office.example.com' },
      },
    });
    await waitForPhase(test, NS, 'team', 'Creating');
  });

  afterAll(async () => {
    await test.close();
  });

  it('starts no Job before the instance is Ready, then one for the first app', async () => {
    expect(jobNames()).toEqual([]);
    settleRelease(test.server, NS, 'team', { ready: true });
    await waitForPhase(test, NS, 'team', 'Ready');
    const job = await waitForJob(CALENDAR);
    expect(job.metadata.labels).toMatchObject({
      'k8s.neutral.com/instance': 'team',
      'k8s.neutral.com/occ-purpose': 'apps',
      'k8s.neutral.com/app': 'calendar',
    });
    expect(job.metadata.annotations).toEqual({ 'k8s.neutral.com/occ-attempt': '1' });
    const container = job.spec!.template.spec.containers[0]!;
    expect(container.image).toBe('nextcloud:29.0.16');
    expect(container.command[2]).toBe(
      'set -e\nphp /var/www/html/occ --no-interaction app:enable calendar',
    );
    expect(jobNames()).toEqual([CALENDAR]);
  });

  it('records a completed Job in status.apps and goes on with the next app', async () => {
    finishJob(test.server, NS, CALENDAR, { succeeded: true, at: now() });
    await waitForJob(OFFICE);
    await test.operator.settled();
    expect(instanceOf(test.server, NS, 'team')?.status?.apps).toEqual({ calendar: true });
    const office = test.server.get<Job>(CoreKinds.Job, NS, OFFICE)!;
    expect(office.spec!.template.spec.containers[0]!.command[2]).toBe(
      'set -e\n' +
        'php /var/www/html/occ --no-interaction app:enable richdocuments\n' +
        'php /var/www/html/occ --no-interaction config:app:set richdocuments wopi_url --value=https://office.example.com',
    );
  });

  it('fails with OccFailed and retries with a doubling backoff on the clock', async () => {
    finishJob(test.server, NS, OFFICE, { succeeded: false, at: now() });
    const failed = await waitForPhase(test, NS, 'team', 'Failed');
    expect(conditionOf(failed, 'OccFailed')).toMatchObject({
      status: 'True',
      reason: 'OccFailed',
      message: `occ Job ${OFFICE} (richdocuments) failed on attempt 1; retrying at 2024-05-03T06:00:30.000Z`,
    });
    expect(eventReasons(test.server, NS, 'team').at(-1)).toBe('Warning/OccFailed');

    await test.operator.advance({ seconds: 29 });
    expect(test.server.get<Job>(CoreKinds.Job, NS, OFFICE)!.metadata.annotations).toEqual({
      'k8s.neutral.com/occ-attempt': '1',
    });
    await test.operator.advance({ seconds: 2 });
    const second = await eventually(
      () => test.server.get<Job>(CoreKinds.Job, NS, OFFICE),
      (job) => job?.metadata.annotations?.['k8s.neutral.com/occ-attempt'] === '2',
      { what: 'the second attempt' },
    );
    expect(second!.status).toBeUndefined();

    // The second failure waits twice as long.
    finishJob(test.server, NS, OFFICE, { succeeded: false, at: now() });
    await test.operator.advance({ seconds: 59 });
    expect(
      test.server.get<Job>(CoreKinds.Job, NS, OFFICE)!.metadata.annotations?.[
        'k8s.neutral.com/occ-attempt'
      ],
    ).toBe('2');
    await test.operator.advance({ seconds: 2 });
    await eventually(
      () => test.server.get<Job>(CoreKinds.Job, NS, OFFICE),
      (job) => job?.metadata.annotations?.['k8s.neutral.com/occ-attempt'] === '3',
      { what: 'the third attempt' },
    );
    expect(await test.operator.metrics()).toContain(
      `groupware_instance_occ_job_failures_total{namespace="${NS}",name="team"} 2`,
    );
  });

  it('clears OccFailed once an attempt succeeds', async () => {
    finishJob(test.server, NS, OFFICE, { succeeded: true, at: now() });
    const ready = await waitForPhase(test, NS, 'team', 'Ready');
    expect(conditionOf(ready, 'OccFailed')).toBeUndefined();
    expect(ready.status?.apps).toEqual({ calendar: true, richdocuments: true });
  });

  it('writes nothing more while every app is applied, and nothing when an entry is removed', async () => {
    await test.operator.settled();
    test.server.clearRequests();
    await test.operator.advance({ seconds: 601 });
    expect(test.server.mutations()).toBe(0);

    await updateSpec(test, NS, 'team', (spec) => ({
      ...spec,
      apps: { richdocuments: spec.apps!.richdocuments },
    }));
    await eventually(
      () => instanceOf(test.server, NS, 'team'),
      (instance) => instance?.status?.observedGeneration === 2,
    );
    await test.operator.settled();
    expect(test.server.mutations({ kind: 'Job' })).toBe(0);
    expect(instanceOf(test.server, NS, 'team')?.status?.apps).toEqual({
      calendar: true,
      richdocuments: true,
    });
  });

  it('disables an app with one Job, replacing the app’s earlier Job', async () => {
    await updateSpec(test, NS, 'team', (spec) => ({
      ...spec,
      apps: { ...spec.apps, richdocuments: { enabled: false } },
    }));
    const disable = occJobName('team', [['app:disable', 'richdocuments']]);
    await waitForJob(disable);
    await eventually(() => test.server.get(CoreKinds.Job, NS, OFFICE) === undefined);
    finishJob(test.server, NS, disable, { succeeded: true, at: now() });
    await eventually(
      () => instanceOf(test.server, NS, 'team'),
      (instance) => instance?.status?.apps?.richdocuments === false,
      { what: 'richdocuments disabled' },
    );
  });

  it('gives Talk its TURN secret by reference, never in the Job spec', async () => {
    await createInstance(test, NS, 'talk', {
      persistence: { enabled: true },
      apps: {
        spreed: {
          enabled: true,
          turnServers: [{ server: 'turn.example.com:3478', secretRef: { name: 'turn-shared' } }],
        },
      },
    });
    await waitForPhase(test, NS, 'talk', 'Creating');
    settleRelease(test.server, NS, 'talk', { ready: true });
    const job = await eventually(() => occJobs(test.server, NS, 'talk')[0] as Job | undefined, {
      what: 'the Talk Job',
    });
    const container = job.spec!.template.spec.containers[0]!;
    expect(container.env).toEqual([
      {
        name: 'TURN_SECRET_0',
        valueFrom: { secretKeyRef: { name: 'turn-shared', key: 'secret' } },
      },
    ]);
    expect(container.command[2]).toContain('config:app:set spreed turn_servers --value="$(php -r');
  });
});
