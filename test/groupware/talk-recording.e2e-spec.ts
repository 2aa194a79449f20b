import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { GroupwareKindRefs, type RecordingServer } from '@platform/groupware';
import { CoreKinds } from '@platform/kube';
import { eventually, type FakeKubeApiServer } from '@platform/testing';
import {
  type GroupwareOperator,
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
  SECRET_NAMESPACE,
  type SecretObject,
  scriptOf,
  talkJobs,
  talkServer,
  updateInstance,
} from './talk-support.js';

const Kind = GroupwareKindRefs.RecordingServer;
const URL_A = 'https://recording.example.org';
const URL_B = 'https://recording-2.example.org';
const SHARED_SECRET = 'recording secret';

describe('RecordingServer registration', () => {
  let server: FakeKubeApiServer;
  let operator: GroupwareOperator;

  const recording = () => server.get<RecordingServer>(Kind, undefined, 'rec');
  const jobs = () => talkJobs(server, 'recording');
  const registeredInstances = () => recording()?.status?.registeredInstances ?? [];

  async function jobsCreated(count: number): Promise<JobObject[]> {
    await eventually(() => jobs().length === count, { timeoutMs: 5000, what: `${count} Jobs` });
    await operator.settled();
    return jobs();
  }

  async function registered(expected: string[]): Promise<void> {
    await eventually(() => JSON.stringify(registeredInstances()) === JSON.stringify(expected), {
      timeoutMs: 5000,
      what: `registered with ${expected.join(', ')}`,
    });
    await operator.settled();
  }

  beforeEach(async () => {
    server = await startGroupwareApiServer();
    operator = await startGroupwareOperator(server, { reconcilers: WITHOUT_INSTANCE_RECONCILER });
    putSharedSecret(server, 'recording', SHARED_SECRET, 'token');
    putInstance(server, 'team-a', 'alpha', { spreed: true });
    putInstance(server, 'team-b', 'beta', { spreed: true });
    putInstance(server, 'team-c', 'gamma', { spreed: true, phase: 'Pending' });
    putInstance(server, 'team-d', 'delta', { spreed: false });
    await operator.client.create(
      Kind,
      talkServer('RecordingServer', 'rec', {
        url: URL_A,
        secretRef: { name: 'recording', namespace: SECRET_NAMESPACE, key: 'token' },
        verifyTls: false,
      }),
    );
  });

  afterEach(async () => {
    await operator.close();
    await server.stop();
  });

  it('registers with the Ready Talk instances through talk:recording:add', async () => {
    const created = await jobsCreated(2);
    expect(
      created.map(
        (job) => `${job.metadata.namespace}/${job.metadata.labels!['k8s.neutral.com/instance']}`,
      ),
    ).toEqual(['team-a/alpha', 'team-b/beta']);
    expect(scriptOf(created[0]!)).toBe(
      [
        'set -e',
        occLine('talk:recording:delete', URL_A),
        occLine('talk:recording:add', URL_A, '"$TALK_SECRET"'),
      ].join('\n'),
    );
    expect(created[1]!.spec!.template.spec.containers[0]!.env).toEqual([
      {
        name: 'TALK_SECRET',
        valueFrom: { secretKeyRef: { name: 'beta-talk-recording-rec', key: 'secret' } },
      },
    ]);
    expect(JSON.stringify(created)).not.toContain(Buffer.from(SHARED_SECRET).toString('base64'));
    const copy = server.get<SecretObject>(CoreKinds.Secret, 'team-b', 'beta-talk-recording-rec')!;
    expect(copy.data).toEqual({ secret: Buffer.from(SHARED_SECRET).toString('base64') });
    // The signaling reconciler leaves recording Jobs alone.
    expect(talkJobs(server, 'signaling')).toEqual([]);

    for (const job of created) finishJob(server, job, true);
    await registered(['team-a/alpha', 'team-b/beta']);
    expect(recording()!.status!.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Registered' }),
      expect.objectContaining({ type: 'OccFailed', status: 'False' }),
    ]);

    updateInstance(server, 'team-c', 'gamma', { phase: 'Ready' });
    const [gammaJob] = await jobsCreated(1);
    finishJob(server, gammaJob!, true);
    await registered(['team-a/alpha', 'team-b/beta', 'team-c/gamma']);
  });

  it('reports a failed Job naming the instance and retries it', async () => {
    const created = await jobsCreated(2);
    finishJob(server, created[0]!, true);
    finishJob(server, created[1]!, false);
    await eventually(
      () => recording()?.status?.conditions?.find((entry) => entry.type === 'OccFailed'),
      (found) => found?.status === 'True',
      { timeoutMs: 5000 },
    );
    const failed = recording()!.status!.conditions!.find((entry) => entry.type === 'OccFailed')!;
    expect(failed.message).toContain(
      `occ Job ${created[1]!.metadata.name} failed for team-b/beta (attempt 1)`,
    );
    await registered(['team-a/alpha']);
    await operator.advance({ seconds: 30 });
    const [retry] = await eventually(
      () => jobs().filter((job) => job.metadata.namespace === 'team-b'),
      (list) => list.length === 1 && list[0]!.metadata.name !== created[1]!.metadata.name,
      { timeoutMs: 5000, what: 'the retry' },
    );
    finishJob(server, retry!, true);
    await registered(['team-a/alpha', 'team-b/beta']);
  });

  it('moves to a new URL, and unregisters on delete', async () => {
    for (const job of await jobsCreated(2)) finishJob(server, job, true);
    await registered(['team-a/alpha', 'team-b/beta']);
    await eventually(() => jobs().length === 0, { timeoutMs: 5000 });

    await operator.client.mergePatch(Kind, undefined, 'rec', { spec: { url: URL_B } });
    const moves = await jobsCreated(2);
    expect(scriptOf(moves[1]!)).toBe(
      [
        'set -e',
        occLine('talk:recording:delete', URL_A),
        occLine('talk:recording:delete', URL_B),
        occLine('talk:recording:add', URL_B, '"$TALK_SECRET"'),
      ].join('\n'),
    );
    for (const job of moves) finishJob(server, job, true);
    await eventually(
      () =>
        recording()!.status!.registrations!.every((entry) => entry.url === URL_B) &&
        jobs().length === 0,
      { timeoutMs: 5000, what: 'moved' },
    );

    await operator.client.delete(Kind, undefined, 'rec');
    const removals = await jobsCreated(2);
    for (const job of removals) {
      expect(scriptOf(job)).toBe(['set -e', occLine('talk:recording:delete', URL_B)].join('\n'));
    }
    expect(recording()).toBeDefined();
    for (const job of removals) finishJob(server, job, true);
    await eventually(() => recording() === undefined, { timeoutMs: 5000, what: 'deleted' });
    await operator.settled();
    expect(jobs()).toEqual([]);
    expect(server.get(CoreKinds.Secret, 'team-a', 'alpha-talk-recording-rec')).toBeUndefined();
  });
});
