import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CoreKinds, KubeClient, type LeaseSpec, type KubeObject } from '@platform/kube';
import { FakeClock, FakeKubeApiServer, eventually } from '@platform/testing';
import { type OperatorTestApp, startOperator, widget, WidgetKind } from './operator-test-app.js';
import { JOURNAL, Journal, type Widget, WidgetReconciler } from './widget-reconciler.js';

describe('Leader election between operator replicas', () => {
  let server: FakeKubeApiServer;
  let client: KubeClient;
  let clock: FakeClock;
  const replicas: Array<{ name: string; app: OperatorTestApp; journal: Journal; closed: boolean }> =
    [];

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    server.registerKind({ ...WidgetKind, statusSubresource: true });
    client = KubeClient.fromKubeConfig(server.kubeConfig());
    clock = new FakeClock('2030-01-01T00:00:00Z');
  });

  afterEach(async () => {
    for (const replica of replicas.splice(0)) if (!replica.closed) await replica.app.close();
    await server.stop();
  });

  async function replica(name: string) {
    const journal = new Journal();
    const app = await startOperator({
      server,
      clock,
      reconcilers: [WidgetReconciler],
      providers: [{ provide: JOURNAL, useValue: journal }],
      operator: {
        podName: name,
        leaderElectionNamespace: 'operators',
        leaseName: 'widgets-leader',
      },
    });
    const entry = { name, app, journal, closed: false };
    replicas.push(entry);
    return entry;
  }

  function lease(): LeaseSpec | undefined {
    return server.get<KubeObject<LeaseSpec>>(CoreKinds.Lease, 'operators', 'widgets-leader')?.spec;
  }

  function leaders() {
    return replicas.filter((r) => !r.closed && r.app.runtime.isLeader);
  }

  async function leaderMetric(app: OperatorTestApp): Promise<string | undefined> {
    const response = await app.request().get('/metrics').expect(200);
    return (response.text as string)
      .split('\n')
      .find((line) => line.startsWith('operator_leader '));
  }

  it('elects exactly one leader; only it reconciles; the other takes over when it stops', async () => {
    const first = await replica('replica-a');
    const second = await replica('replica-b');
    const [leader] = await eventually(() => (leaders().length > 0 ? leaders() : undefined), {
      timeoutMs: 5000,
      what: 'a leader',
    });
    const follower = leader === first ? second : first;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(leaders()).toEqual([leader]);
    expect(lease()).toMatchObject({ holderIdentity: leader!.name, leaseDurationSeconds: 15 });

    // The follower stays ready, with its cache warm, but does nothing.
    await eventually(() => follower.app.runtime.hasSynced);
    await follower.app.request().get('/readyz').expect(200);
    expect(await leaderMetric(leader!.app)).toBe('operator_leader 1');
    expect(await leaderMetric(follower.app)).toBe('operator_leader 0');

    await client.create(WidgetKind, widget('first'));
    await eventually(
      () => server.get<Widget>(WidgetKind, 'team-a', 'first')?.status?.phase === 'Ready',
    );
    expect(leader!.journal.count('first')).toBeGreaterThanOrEqual(1);
    expect(follower.journal.reconciled).toEqual([]);

    await leader!.app.close();
    leader!.closed = true;
    await eventually(() => follower.app.runtime.isLeader, {
      timeoutMs: 5000,
      what: 'the take-over',
    });
    expect(lease()).toMatchObject({ holderIdentity: follower.name, leaseTransitions: 1 });
    await client.create(WidgetKind, widget('second'));
    await eventually(
      () => server.get<Widget>(WidgetKind, 'team-a', 'second')?.status?.phase === 'Ready',
    );
    expect(follower.journal.count('second')).toBeGreaterThanOrEqual(1);
    // Taking over reconciles everything once, as a start does.
    expect(follower.journal.count('first')).toBeGreaterThanOrEqual(1);
  });

  it('stops reconciling when another holder takes the lease, which is free again only once it expired', async () => {
    const first = await replica('replica-a');
    await eventually(() => first.app.runtime.isLeader, {
      timeoutMs: 5000,
      what: 'the first leader',
    });
    const second = await replica('replica-b');
    await eventually(() => second.app.runtime.hasSynced);

    // Another process (say, a replica on a partitioned node) overwrites the lease.
    const current = server.get<KubeObject<LeaseSpec>>(
      CoreKinds.Lease,
      'operators',
      'widgets-leader',
    )!;
    server.put(CoreKinds.Lease, {
      ...current,
      spec: { ...current.spec, holderIdentity: 'intruder' },
    });
    await eventually(() => !first.app.runtime.isLeader, {
      timeoutMs: 5000,
      what: 'the first to step down',
    });
    expect(await leaderMetric(first.app)).toBe('operator_leader 0');

    await client.create(WidgetKind, widget('while-taken'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(leaders()).toEqual([]);
    expect(first.journal.count('while-taken') + second.journal.count('while-taken')).toBe(0);

    // Fifteen seconds without a renewal by the intruder: one of the replicas takes over.
    clock.advance({ seconds: 16 });
    await eventually(() => leaders().length === 1, { timeoutMs: 5000, what: 'a new leader' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(leaders()).toHaveLength(1);
    expect(lease()?.holderIdentity).toBe(leaders()[0]!.name);
    await eventually(
      () => server.get<Widget>(WidgetKind, 'team-a', 'while-taken')?.status?.phase === 'Ready',
    );
  });
});
