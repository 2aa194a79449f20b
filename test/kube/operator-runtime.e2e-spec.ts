import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CoreKinds, KubeClient, type KubeObject } from '@platform/kube';
import { FakeKubeApiServer, eventually } from '@platform/testing';
import {
  type OperatorTestApp,
  type OperatorTestOptions,
  startOperator,
  widget,
  WidgetKind,
} from './operator-test-app.js';
import {
  JOURNAL,
  Journal,
  type Widget,
  WIDGET_FINALIZER,
  WidgetReconciler,
} from './widget-reconciler.js';

describe('Operator runtime', () => {
  let server: FakeKubeApiServer;
  let client: KubeClient;
  let journal: Journal;
  let operator: OperatorTestApp | undefined;

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    server.registerKind({ ...WidgetKind, statusSubresource: true });
    client = KubeClient.fromKubeConfig(server.kubeConfig());
    journal = new Journal();
  });

  afterEach(async () => {
    await operator?.close();
    operator = undefined;
    await server.stop();
  });

  async function start(options: Partial<OperatorTestOptions> = {}): Promise<OperatorTestApp> {
    operator = await startOperator({
      server,
      reconcilers: [WidgetReconciler],
      providers: [{ provide: JOURNAL, useValue: journal }],
      ...options,
    });
    return operator;
  }

  function widgetOnServer(name: string): Widget | undefined {
    return server.get<Widget>(WidgetKind, 'team-a', name);
  }

  async function metric(app: OperatorTestApp, line: string): Promise<number | undefined> {
    const response = await app.request().get('/metrics').expect(200);
    const found = (response.text as string).split('\n').find((l) => l.startsWith(`${line} `));
    return found === undefined ? undefined : Number(found.slice(line.length + 1));
  }

  it('answers /readyz 503 until its informers have synced, /healthz always', async () => {
    const unserved = await FakeKubeApiServer.start();
    await server.stop();
    server = unserved;
    const app = await start();
    await app.request().get('/healthz').expect(200, { status: 'ok' });
    const notReady = await app.request().get('/readyz').expect(503);
    expect(notReady.body).toEqual({
      status: 'unavailable',
      checks: { informers: { status: 'down', error: 'not synced: widgets' } },
    });
    server.registerKind({ ...WidgetKind, statusSubresource: true });
    await eventually(() => app.runtime.hasSynced, { timeoutMs: 5000, what: 'informers synced' });
    await app
      .request()
      .get('/readyz')
      .expect(200, { status: 'ok', checks: { informers: { status: 'up' } } });
  });

  it('reconciles without a lease when leader election is off', async () => {
    const app = await start({ operator: { leaderElection: false } });
    await client.create(WidgetKind, widget('solo'));
    await eventually(() => widgetOnServer('solo')?.status?.phase === 'Ready');
    expect(app.runtime.isLeader).toBe(true);
    expect(server.list(CoreKinds.Lease)).toEqual([]);
    expect(server.requests.some((r) => r.kind === 'Lease')).toBe(false);
  });

  it('serves ready probes for an operator without reconcilers', async () => {
    const app = await start({ reconcilers: [] });
    await app
      .request()
      .get('/readyz')
      .expect(200, { status: 'ok', checks: { informers: { status: 'up' } } });
    expect(app.runtime.isLeader).toBe(false);
    expect(server.requests).toEqual([]);
  });

  it('adds the finalizer before the first reconcile, writes children and status, and finalizes on delete', async () => {
    const app = await start();
    await client.create(WidgetKind, widget('nightly'));
    await eventually(() => widgetOnServer('nightly')?.status?.phase === 'Ready', {
      timeoutMs: 5000,
      what: 'status Ready',
    });
    const stored = widgetOnServer('nightly')!;
    expect(stored.metadata.finalizers).toEqual([WIDGET_FINALIZER]);
    expect(journal.reconciled[0]).toMatchObject({
      name: 'nightly',
      finalizers: [WIDGET_FINALIZER],
    });
    expect(stored.status).toEqual({
      phase: 'Ready',
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Reconciled',
          lastTransitionTime: '2030-01-01T00:00:00Z',
        },
      ],
    });
    const statusWrites = server.requests.filter(
      (r) => r.kind === 'Widget' && r.subresource === 'status',
    );
    expect(statusWrites.map((r) => r.method)).toEqual(['PATCH']);
    const cronJob = server.get<KubeObject>(CoreKinds.CronJob, 'team-a', 'nightly-backup')!;
    expect(cronJob.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'test.k8s.neutral.com/v1',
        kind: 'Widget',
        name: 'nightly',
        uid: stored.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);

    await client.delete(WidgetKind, 'team-a', 'nightly');
    await eventually(() => widgetOnServer('nightly') === undefined, {
      timeoutMs: 5000,
      what: 'the widget gone',
    });
    expect(journal.finalized).toEqual(['nightly']);
    await eventually(() => server.get(CoreKinds.CronJob, 'team-a', 'nightly-backup') === undefined);
    expect(app.runtime.isLeader).toBe(true);
  });

  it('writes nothing when a resync reconciles unchanged objects', async () => {
    const app = await start({ operator: { resyncPeriodSeconds: 300 } });
    await client.create(WidgetKind, widget('a'));
    await client.create(WidgetKind, widget('b'));
    await eventually(() => widgetOnServer('a')?.status && widgetOnServer('b')?.status, {
      timeoutMs: 5000,
      what: 'both reconciled',
    });
    await app.runtime.idle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await app.runtime.idle();
    const writes = () =>
      server.mutations({ kind: 'Widget' }) + server.mutations({ kind: 'CronJob' });
    const before = writes();
    const reconciles = journal.reconciled.length;

    app.clock.advance({ seconds: 299 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(journal.reconciled.length).toBe(reconciles);
    app.clock.advance({ seconds: 1 });
    await eventually(() => journal.reconciled.length === reconciles + 2, {
      timeoutMs: 5000,
      what: 'the resync',
    });
    await app.runtime.idle();
    expect(writes()).toBe(before);
  });

  it('retries a failing reconcile with exponential backoff by the clock', async () => {
    journal.failuresLeft.set('flaky', 3);
    const app = await start();
    // Created with the finalizer, so that no event of the runtime's own write runs it early.
    const flaky = widget('flaky');
    await client.create(WidgetKind, {
      ...flaky,
      metadata: { ...flaky.metadata, finalizers: [WIDGET_FINALIZER] },
    });
    await eventually(() => journal.count('flaky') >= 1, {
      timeoutMs: 5000,
      what: 'the first attempt',
    });
    expect(journal.count('flaky')).toBe(1);
    const start0 = app.clock.nowMs();
    const attemptTimes = () =>
      journal.reconciled.filter((r) => r.name === 'flaky').map((r) => r.atMs - start0);
    // 1 s, then 2 s, then 4 s.
    for (const [waitMs, attempts] of [
      [1000, 2],
      [2000, 3],
      [4000, 4],
    ] as const) {
      app.clock.advance({ ms: waitMs - 1 });
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(journal.count('flaky')).toBe(attempts - 1);
      app.clock.advance({ ms: 1 });
      await eventually(() => journal.count('flaky') >= attempts, {
        timeoutMs: 5000,
        what: `attempt ${attempts}`,
      });
    }
    // The fourth attempt succeeds; its own writes (CronJob, status) may queue it again at once.
    expect(attemptTimes().slice(0, 4)).toEqual([0, 1000, 3000, 7000]);
    expect(new Set(attemptTimes().slice(3))).toEqual(new Set([7000]));
    await eventually(() => widgetOnServer('flaky')?.status?.phase === 'Ready');
    expect(await metric(app, 'operator_reconcile_errors_total{kind="Widget"}')).toBe(3);
    expect(await metric(app, 'operator_reconcile_total{kind="Widget",result="error"}')).toBe(3);
    expect(
      await metric(app, 'operator_reconcile_total{kind="Widget",result="success"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(await metric(app, 'operator_leader')).toBe(1);
    expect(await metric(app, 'operator_workqueue_depth{kind="Widget"}')).toBe(0);
  });

  it('reconciles again after requeueAfterMs', async () => {
    journal.requeueAfterMs.set('polled', 30_000);
    const app = await start();
    await client.create(WidgetKind, widget('polled'));
    await eventually(() => widgetOnServer('polled')?.status?.phase === 'Ready');
    await app.runtime.idle();
    const before = journal.count('polled');
    app.clock.advance({ seconds: 30 });
    await eventually(() => journal.count('polled') > before, {
      timeoutMs: 5000,
      what: 'the requeued reconcile',
    });
  });

  it('reconciles the owner when an owned child changes, restoring what it wants', async () => {
    await start();
    await client.create(WidgetKind, widget('owner', 'team-a', { schedule: '0 4 * * *' }));
    await eventually(() =>
      server.get<KubeObject<{ schedule: string }>>(CoreKinds.CronJob, 'team-a', 'owner-backup'),
    );
    const cronJob = server.get<KubeObject<{ schedule: string }>>(
      CoreKinds.CronJob,
      'team-a',
      'owner-backup',
    )!;
    server.put(CoreKinds.CronJob, {
      ...cronJob,
      spec: { ...cronJob.spec!, schedule: '* * * * *' },
    });
    await eventually(
      () =>
        server.get<KubeObject<{ schedule: string }>>(CoreKinds.CronJob, 'team-a', 'owner-backup')!
          .spec!.schedule === '0 4 * * *',
      { timeoutMs: 5000, what: 'the schedule restored' },
    );
    const childWatch = server.requests.find(
      (r) => r.kind === 'CronJob' && r.query.watch === 'true',
    );
    expect(childWatch?.query.labelSelector).toBe('app.kubernetes.io/managed-by=test-operator');
  });

  it('reconciles each object once however many events it gets, never twice at once', async () => {
    let release!: () => void;
    journal.hold = new Promise((resolve) => (release = resolve));
    const app = await start();
    await client.create(WidgetKind, widget('busy'));
    await eventually(() => journal.count('busy') === 1);
    for (let size = 2; size <= 6; size += 1) {
      await client.mergePatch(WidgetKind, 'team-a', 'busy', { spec: { size } });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(journal.count('busy')).toBe(1);
    release();
    journal.hold = undefined;
    await eventually(() => widgetOnServer('busy')?.status?.observedGeneration === 6, {
      timeoutMs: 5000,
      what: 'generation 6 observed',
    });
    await app.runtime.idle();
    expect(journal.mostAtOnce).toBe(1);
    // The run under way, then one run for the five changes made meanwhile: no generation between.
    const generations = journal.reconciled
      .filter((r) => r.name === 'busy')
      .map((r) => r.generation);
    expect(generations.slice(0, 2)).toEqual([1, 6]);
    expect(new Set(generations)).toEqual(new Set([1, 6]));
  });

  it('reconciles only the namespaces in WATCH_NAMESPACE', async () => {
    const app = await start({ operator: { watchNamespaces: ['team-a'] } });
    await client.create(WidgetKind, widget('inside', 'team-a'));
    await client.create(WidgetKind, widget('outside', 'team-b'));
    await eventually(() => widgetOnServer('inside')?.status?.phase === 'Ready');
    await app.runtime.idle();
    expect(journal.reconciled.map((r) => r.name)).not.toContain('outside');
    expect(
      server.get<Widget>(WidgetKind, 'team-b', 'outside')!.metadata.finalizers,
    ).toBeUndefined();
    const widgetRequests = server.requests.filter(
      (r) => r.kind === 'Widget' && r.method === 'GET' && !r.name,
    );
    expect(widgetRequests.every((r) => r.namespace === 'team-a')).toBe(true);
  });

  it('on shutdown stops watching, lets the running reconcile finish and releases the lease', async () => {
    let release!: () => void;
    journal.hold = new Promise((resolve) => (release = resolve));
    const app = await start({ operator: { podName: 'replica-1' } });
    await client.create(WidgetKind, widget('slow'));
    await eventually(() => journal.running === 1);
    expect(
      server.get<KubeObject<{ holderIdentity: string }>>(
        CoreKinds.Lease,
        'default',
        'test-operator-leader',
      )!.spec,
    ).toMatchObject({ holderIdentity: 'replica-1' });
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    operator = undefined;
    await eventually(() => server.openWatches === 0, { timeoutMs: 5000, what: 'watches closed' });
    expect(closed).toBe(false);
    release();
    await closing;
    expect(journal.running).toBe(0);
    expect(widgetOnServer('slow')?.status?.phase).toBe('Ready');
    expect(
      server.get<KubeObject<{ holderIdentity: string }>>(
        CoreKinds.Lease,
        'default',
        'test-operator-leader',
      )!.spec,
    ).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
  });
});
