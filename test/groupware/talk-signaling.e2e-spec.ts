import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { GroupwareKindRefs, type SignalingServer, TalkJobAnnotations } from '@platform/groupware';
import { CoreKinds, KubeClient, type KubeObject } from '@platform/kube';
import { eventually, type FakeKubeApiServer } from '@platform/testing';
import {
  type GroupwareOperator,
  OPERATOR_CLOCK_START,
  RESYNC_PERIOD_SECONDS,
  startGroupwareApiServer,
  startGroupwareOperator,
  WITHOUT_INSTANCE_RECONCILER,
} from './support.js';
import {
  finishJob,
  type JobObject,
  occLine,
  putInstance,
  putSharedSecret,
  RESOLVED_VERSION,
  SECRET_NAMESPACE,
  type SecretObject,
  scriptOf,
  talkJobs,
  talkServer,
  updateInstance,
} from './talk-support.js';

const Kind = GroupwareKindRefs.SignalingServer;
const URL_A = 'wss://signaling.example.org/standalone-signaling';
const URL_B = 'wss://hpb-2.example.org';
const SHARED_SECRET = 'correct horse battery staple';

type EventObject = KubeObject & {
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
};

describe('SignalingServer registration', () => {
  let server: FakeKubeApiServer;
  let operator: GroupwareOperator;
  let client: KubeClient;

  const signaling = () => server.get<SignalingServer>(Kind, undefined, 'hpb');
  const jobs = () => talkJobs(server, 'signaling');
  const jobsIn = (namespace: string) => jobs().filter((j) => j.metadata.namespace === namespace);
  const events = () =>
    server
      .list<EventObject>(CoreKinds.Event, 'default')
      .map((event) => ({
        name: event.metadata.name,
        type: event.type,
        reason: event.reason,
        message: event.message,
        involvedObject: `${event.involvedObject.kind}/${event.involvedObject.name}`,
      }))
      .sort((a, b) => a.name!.localeCompare(b.name!));
  const condition = (type: string) =>
    signaling()?.status?.conditions?.find((entry) => entry.type === type);

  /** Waits for `count` signaling Jobs, then for the operator to be idle. */
  async function jobsCreated(count: number): Promise<JobObject[]> {
    await eventually(() => jobs().length === count, { timeoutMs: 5000, what: `${count} Jobs` });
    await operator.settled();
    return jobs();
  }

  async function registered(expected: string[]): Promise<void> {
    await eventually(
      () =>
        JSON.stringify(signaling()?.status?.registeredInstances ?? []) === JSON.stringify(expected),
      { timeoutMs: 5000, what: `registered with ${expected.join(', ')}` },
    );
    await operator.settled();
  }

  async function createServer(spec: Partial<{ url: string; verifyTls: boolean }> = {}) {
    await client.create(
      Kind,
      talkServer('SignalingServer', 'hpb', {
        url: URL_A,
        secretRef: { name: 'hpb-secret', namespace: SECRET_NAMESPACE },
        ...spec,
      }),
    );
  }

  /** alpha and beta: Ready with Talk; the server registered with both. */
  async function registerWithTwo(): Promise<void> {
    putInstance(server, 'team-a', 'alpha', { spreed: true });
    putInstance(server, 'team-b', 'beta', { spreed: true });
    await createServer();
    for (const job of await jobsCreated(2)) finishJob(server, job, true);
    await registered(['team-a/alpha', 'team-b/beta']);
    await eventually(() => jobs().length === 0, { timeoutMs: 5000, what: 'Jobs removed' });
    await operator.settled();
  }

  beforeEach(async () => {
    server = await startGroupwareApiServer();
    operator = await startGroupwareOperator(server, { reconcilers: WITHOUT_INSTANCE_RECONCILER });
    client = operator.client;
    putSharedSecret(server, 'hpb-secret', SHARED_SECRET);
  });

  afterEach(async () => {
    await operator.close();
    await server.stop();
  });

  it('registers with every Ready instance running Talk, the secret passed by reference', async () => {
    putInstance(server, 'team-a', 'alpha', { spreed: true });
    putInstance(server, 'team-b', 'beta', { spreed: true });
    putInstance(server, 'team-c', 'gamma', { spreed: true, phase: 'Creating' });
    putInstance(server, 'team-d', 'delta', { spreed: false });
    putInstance(server, 'team-e', 'epsilon');
    await createServer();

    const created = await jobsCreated(2);
    expect(created.map((job) => job.metadata.namespace)).toEqual(['team-a', 'team-b']);
    const [alphaJob] = created;
    expect(alphaJob!.metadata.name).toMatch(/^alpha-occ-[0-9a-f]{10}$/);
    expect(alphaJob!.metadata.labels).toMatchObject({
      'k8s.neutral.com/instance': 'alpha',
      'k8s.neutral.com/occ-purpose': 'signaling',
    });
    expect(alphaJob!.metadata.annotations).toMatchObject({
      'k8s.neutral.com/talk-server': 'hpb',
      [TalkJobAnnotations.attempt]: '1',
    });
    expect(scriptOf(alphaJob!)).toBe(
      [
        'set -e',
        occLine('talk:signaling:delete', URL_A),
        occLine('talk:signaling:add', URL_A, '"$TALK_SECRET"', '--verify'),
      ].join('\n'),
    );
    const container = alphaJob!.spec!.template.spec.containers[0]!;
    expect(container.image).toBe(`nextcloud:${RESOLVED_VERSION}`);
    expect(container.env).toEqual([
      {
        name: 'TALK_SECRET',
        valueFrom: { secretKeyRef: { name: 'alpha-talk-signaling-hpb', key: 'secret' } },
      },
    ]);
    const base64 = Buffer.from(SHARED_SECRET).toString('base64');
    for (const job of created) {
      expect(JSON.stringify(job)).not.toContain(SHARED_SECRET);
      expect(JSON.stringify(job)).not.toContain(base64);
    }

    const copy = server.get<SecretObject>(CoreKinds.Secret, 'team-a', 'alpha-talk-signaling-hpb')!;
    expect(copy.data).toEqual({ secret: base64 });
    expect(copy.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'GroupwareInstance', name: 'alpha', controller: true }),
    ]);
    expect(server.get(CoreKinds.Secret, 'team-c', 'gamma-talk-signaling-hpb')).toBeUndefined();

    // Nothing is registered until a Job succeeded.
    expect(signaling()!.status!.registeredInstances).toEqual([]);
    expect(condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'Registering',
      message: 'occ Jobs running for team-a/alpha, team-b/beta',
    });

    finishJob(server, created[0]!, true);
    await registered(['team-a/alpha']);
    finishJob(server, created[1]!, true);
    await registered(['team-a/alpha', 'team-b/beta']);
    const status = signaling()!.status!;
    expect(status.observedGeneration).toBe(1);
    expect(status.registrations).toEqual([
      expect.objectContaining({ instance: 'team-a/alpha', url: URL_A, verifyTls: true }),
      expect.objectContaining({ instance: 'team-b/beta', url: URL_A, verifyTls: true }),
    ]);
    expect(condition('Ready')).toMatchObject({
      status: 'True',
      reason: 'Registered',
      message: 'registered with 2 instance(s)',
    });
    expect(condition('OccFailed')).toMatchObject({ status: 'False', reason: 'NoFailedJobs' });
    expect(events()).toEqual([
      {
        name: `hpb.${created[0]!.metadata.name}.registered`,
        type: 'Normal',
        reason: 'Registered',
        message: `registered with team-a/alpha (occ Job ${created[0]!.metadata.name})`,
        involvedObject: 'SignalingServer/hpb',
      },
      {
        name: `hpb.${created[1]!.metadata.name}.registered`,
        type: 'Normal',
        reason: 'Registered',
        message: `registered with team-b/beta (occ Job ${created[1]!.metadata.name})`,
        involvedObject: 'SignalingServer/hpb',
      },
    ]);
    // Recorded in status, the finished Jobs go.
    await eventually(() => jobs().length === 0, { timeoutMs: 5000, what: 'Jobs removed' });
  });

  it('writes nothing in steady state', async () => {
    await registerWithTwo();
    server.clearRequests();
    await operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    expect(server.mutations()).toBe(0);
    expect(jobs()).toEqual([]);
  });

  it('reports a failed Job in a condition naming the instance and retries it with backoff', async () => {
    putInstance(server, 'team-a', 'alpha', { spreed: true });
    await createServer();
    const [first] = await jobsCreated(1);
    finishJob(server, first!, false);
    await eventually(() => condition('OccFailed')?.status === 'True', { timeoutMs: 5000 });
    await operator.settled();
    const retryAt = new Date(Date.parse(OPERATOR_CLOCK_START) + 30_000).toISOString();
    expect(condition('OccFailed')).toMatchObject({
      status: 'True',
      reason: 'JobFailed',
      message: `occ Job ${first!.metadata.name} failed for team-a/alpha (attempt 1); retrying at ${retryAt.replace('.000', '')}`,
    });
    expect(condition('Ready')).toMatchObject({ status: 'False', reason: 'OccFailed' });
    expect(signaling()!.status!.registeredInstances).toEqual([]);
    expect(events()).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: 'OccFailed',
        message: condition('OccFailed')!.message,
      }),
    ]);

    // Not before the backoff has passed.
    await operator.advance({ seconds: 29 });
    expect(jobs().map((job) => job.metadata.name)).toEqual([first!.metadata.name]);
    await operator.advance({ seconds: 1 });
    await eventually(() => jobs().some((job) => job.metadata.name !== first!.metadata.name), {
      timeoutMs: 5000,
      what: 'the second attempt',
    });
    await operator.settled();
    const [second] = jobs();
    expect(jobs()).toHaveLength(1);
    expect(second!.metadata.annotations![TalkJobAnnotations.attempt]).toBe('2');
    expect(scriptOf(second!)).toBe(scriptOf(first!));

    // The second failure waits twice as long.
    finishJob(server, second!, false);
    await eventually(() => condition('OccFailed')?.message?.includes('(attempt 2)'), {
      timeoutMs: 5000,
    });
    await operator.advance({ seconds: 59 });
    expect(jobs().map((job) => job.metadata.name)).toEqual([second!.metadata.name]);
    await operator.advance({ seconds: 1 });
    const [third] = await eventually(
      () => jobs(),
      (list) =>
        list.length === 1 && list[0]!.metadata.annotations![TalkJobAnnotations.attempt] === '3',
      { timeoutMs: 5000, what: 'the third attempt' },
    );
    finishJob(server, third!, true);
    await registered(['team-a/alpha']);
    expect(condition('OccFailed')).toMatchObject({ status: 'False', reason: 'NoFailedJobs' });
    expect(condition('Ready')).toMatchObject({ status: 'True' });
  });

  it('unregisters from every instance on delete, the finalizer waiting for the delete Jobs', async () => {
    await registerWithTwo();
    await client.delete(Kind, undefined, 'hpb');
    const deletions = await jobsCreated(2);
    for (const job of deletions) {
      expect(scriptOf(job)).toBe(['set -e', occLine('talk:signaling:delete', URL_A)].join('\n'));
      expect(job.spec!.template.spec.containers[0]!.env).toBeUndefined();
    }
    expect(signaling()!.metadata.finalizers).toEqual(['k8s.neutral.com/signaling-registrations']);

    finishJob(server, deletions[0]!, true);
    await registered(['team-b/beta']);
    expect(signaling()).toBeDefined();
    finishJob(server, deletions[1]!, true);
    await eventually(() => signaling() === undefined, { timeoutMs: 5000, what: 'the server gone' });
    await operator.settled();
    expect(jobs()).toEqual([]);
    expect(server.get(CoreKinds.Secret, 'team-a', 'alpha-talk-signaling-hpb')).toBeUndefined();
    expect(server.get(CoreKinds.Secret, 'team-b', 'beta-talk-signaling-hpb')).toBeUndefined();
  });

  it('re-registers on a URL change: the old URL removed, the new one added', async () => {
    await registerWithTwo();
    await client.mergePatch(Kind, undefined, 'hpb', { spec: { url: URL_B, verifyTls: false } });
    const moves = await jobsCreated(2);
    expect(scriptOf(moves[0]!)).toBe(
      [
        'set -e',
        occLine('talk:signaling:delete', URL_A),
        occLine('talk:signaling:delete', URL_B),
        occLine('talk:signaling:add', URL_B, '"$TALK_SECRET"'),
      ].join('\n'),
    );
    // Until the move succeeded, the old registration stands.
    expect(signaling()!.status!.registrations![0]).toMatchObject({ url: URL_A });
    for (const job of moves) finishJob(server, job, true);
    await eventually(
      () => signaling()!.status!.registrations!.every((entry) => entry.url === URL_B),
      { timeoutMs: 5000, what: 'the new URL registered' },
    );
    expect(signaling()!.status!.registrations).toEqual([
      expect.objectContaining({ instance: 'team-a/alpha', url: URL_B, verifyTls: false }),
      expect.objectContaining({ instance: 'team-b/beta', url: URL_B, verifyTls: false }),
    ]);
    expect(signaling()!.status!.observedGeneration).toBe(2);
  });

  it('re-registers when the shared secret changes, updating the copies', async () => {
    await registerWithTwo();
    putSharedSecret(server, 'hpb-secret', 'a new secret');
    // The source Secret is not watched: the next look at the server finds the change.
    await operator.advance({ seconds: RESYNC_PERIOD_SECONDS + 1 });
    const again = await jobsCreated(2);
    expect(scriptOf(again[0]!)).toBe(
      [
        'set -e',
        occLine('talk:signaling:delete', URL_A),
        occLine('talk:signaling:add', URL_A, '"$TALK_SECRET"', '--verify'),
      ].join('\n'),
    );
    const copy = server.get<SecretObject>(CoreKinds.Secret, 'team-a', 'alpha-talk-signaling-hpb')!;
    expect(copy.data).toEqual({ secret: Buffer.from('a new secret').toString('base64') });
    for (const job of again) finishJob(server, job, true);
    const copyVersion = (namespace: string, name: string) =>
      server.get<SecretObject>(CoreKinds.Secret, namespace, `${name}-talk-signaling-hpb`)!.metadata
        .resourceVersion;
    await eventually(() => jobs().length === 0, { timeoutMs: 5000, what: 'Jobs removed' });
    expect(signaling()!.status!.registrations).toEqual([
      {
        instance: 'team-a/alpha',
        url: URL_A,
        verifyTls: true,
        secretVersion: copyVersion('team-a', 'alpha'),
      },
      {
        instance: 'team-b/beta',
        url: URL_A,
        verifyTls: true,
        secretVersion: copyVersion('team-b', 'beta'),
      },
    ]);
  });

  it('registers with an instance once it is Ready, and drops instances that stop running Talk or go', async () => {
    putInstance(server, 'team-c', 'gamma', { spreed: true, phase: 'Creating' });
    await registerWithTwo();

    updateInstance(server, 'team-c', 'gamma', { phase: 'Ready' });
    const [gammaJob] = await jobsCreated(1);
    expect(gammaJob!.metadata.namespace).toBe('team-c');
    finishJob(server, gammaJob!, true);
    await registered(['team-a/alpha', 'team-b/beta', 'team-c/gamma']);
    await eventually(() => jobs().length === 0, { timeoutMs: 5000 });

    // Talk turned off: the delete command runs, then the instance leaves the list.
    updateInstance(server, 'team-a', 'alpha', { spreed: false });
    const [removal] = await jobsCreated(1);
    expect(removal!.metadata.namespace).toBe('team-a');
    expect(scriptOf(removal!)).toBe(['set -e', occLine('talk:signaling:delete', URL_A)].join('\n'));
    expect(signaling()!.status!.registeredInstances).toContain('team-a/alpha');
    finishJob(server, removal!, true);
    await registered(['team-b/beta', 'team-c/gamma']);
    await eventually(
      () => server.get(CoreKinds.Secret, 'team-a', 'alpha-talk-signaling-hpb') === undefined,
      { timeoutMs: 5000, what: 'the copy removed' },
    );

    // A deleted instance has nothing left to run against: it just leaves the list.
    server.remove(GroupwareKindRefs.GroupwareInstance, 'team-b', 'beta');
    await registered(['team-c/gamma']);
    expect(jobs().filter((job) => job.metadata.namespace === 'team-b')).toEqual([]);
    expect(jobsIn('team-c')).toEqual([]);
  });

  it('reports an unreadable shared secret and registers nothing', async () => {
    putInstance(server, 'team-a', 'alpha', { spreed: true });
    await client.create(
      Kind,
      talkServer('SignalingServer', 'hpb', {
        url: URL_A,
        secretRef: { name: 'missing', namespace: SECRET_NAMESPACE },
      }),
    );
    await eventually(() => condition('Ready')?.reason === 'SecretUnavailable', { timeoutMs: 5000 });
    expect(condition('Ready')).toMatchObject({
      status: 'False',
      message: `Secret ${SECRET_NAMESPACE}/missing does not exist`,
    });
    expect(jobs()).toEqual([]);
    putSharedSecret(server, 'missing', SHARED_SECRET);
    await operator.advance({ seconds: 60 });
    await jobsCreated(1);
  });
});
