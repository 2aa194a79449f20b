import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Inject, Injectable } from '@nestjs/common';
import {
  CoreKinds,
  type FinalizeResult,
  type KindRef,
  KubeClient,
  type KubeObject,
  type ObjectName,
  type ReconcileContext,
  type Reconciler,
} from '@platform/kube';
import { FakeKubeApiServer, eventually } from '@platform/testing';
import { type OperatorTestApp, startOperator, widget, WidgetKind } from './operator-test-app.js';
import { JOURNAL, Journal, type Widget } from './widget-reconciler.js';

const WIDGET_LABEL = 'test.k8s.neutral.com/widget';
const HOLD_FINALIZER = 'test.k8s.neutral.com/hold';
const HOLD_ANNOTATION = 'test.k8s.neutral.com/hold';

/**
 * Widgets that every Pod of the cluster concerns (the Pods are watched whole), and whose Jobs
 * carry the widget's label (only those are cached); deletion waits while a widget is annotated.
 */
@Injectable()
class FanOutWidgetReconciler implements Reconciler<Widget> {
  readonly kind = WidgetKind;
  readonly owns = [CoreKinds.Pod, CoreKinds.Job];
  readonly finalizer = HOLD_FINALIZER;

  constructor(@Inject(JOURNAL) private readonly journal: Journal) {}

  ownsSelector(kind: KindRef): string | undefined {
    return kind.kind === 'Job' ? WIDGET_LABEL : undefined;
  }

  ownerOf(child: KubeObject, kind: KindRef, context: ReconcileContext): ObjectName[] {
    if (kind.kind === 'Job') return [{ name: child.metadata.labels![WIDGET_LABEL]! }];
    return context
      .cache<Widget>(WidgetKind)
      .list()
      .map((object) => ({ namespace: object.metadata.namespace, name: object.metadata.name! }));
  }

  async reconcile(object: Widget): Promise<void> {
    this.journal.reconciled.push({
      name: `${object.metadata.namespace}/${object.metadata.name}`,
      atMs: 0,
      finalizers: object.metadata.finalizers ?? [],
    });
  }

  async finalize(object: Widget): Promise<FinalizeResult | void> {
    this.journal.finalized.push(`${object.metadata.namespace}/${object.metadata.name}`);
    if (object.metadata.annotations?.[HOLD_ANNOTATION]) return { pending: true };
  }
}

const job = (name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'team-a', labels },
  spec: { template: { spec: { containers: [{ name: 'run', image: 'busybox' }] } } },
});

describe('Operator runtime: children that concern several objects', () => {
  let server: FakeKubeApiServer;
  let client: KubeClient;
  let journal: Journal;
  let operator: OperatorTestApp;

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    server.registerKind({ ...WidgetKind, statusSubresource: true });
    client = KubeClient.fromKubeConfig(server.kubeConfig());
    journal = new Journal();
    operator = await startOperator({
      server,
      reconcilers: [FanOutWidgetReconciler],
      providers: [{ provide: JOURNAL, useValue: journal }],
      operator: { leaderElection: false },
    });
    for (const name of ['alpha', 'beta']) await client.create(WidgetKind, widget(name));
    await eventually(() => journal.count('team-a/alpha') >= 1 && journal.count('team-a/beta') >= 1);
    await operator.runtime.idle();
  });

  afterEach(async () => {
    await operator.close();
    await server.stop();
  });

  it('reconciles every object ownerOf names for one child event', async () => {
    const before = { alpha: journal.count('team-a/alpha'), beta: journal.count('team-a/beta') };
    server.put(CoreKinds.Pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'team-a' },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
    });
    await eventually(
      () =>
        journal.count('team-a/alpha') > before.alpha && journal.count('team-a/beta') > before.beta,
      { timeoutMs: 5000, what: 'both widgets reconciled' },
    );
  });

  it('watches each owned kind with the selector the reconciler gives for it', async () => {
    const before = journal.count('team-a/alpha');
    server.put(CoreKinds.Job, job('unlabelled', {}));
    server.put(CoreKinds.Job, job('alpha-run', { [WIDGET_LABEL]: 'alpha' }));
    await eventually(() => journal.count('team-a/alpha') > before, { timeoutMs: 5000 });
    await operator.runtime.idle();
    const jobWatches = server.requests.filter(
      (request) => request.kind === 'Job' && request.method === 'GET',
    );
    expect(jobWatches.length).toBeGreaterThan(0);
    for (const request of jobWatches) {
      expect(request.query.labelSelector).toBe(WIDGET_LABEL);
    }
    const podWatches = server.requests.filter(
      (request) => request.kind === 'Pod' && request.method === 'GET',
    );
    expect(podWatches.length).toBeGreaterThan(0);
    for (const request of podWatches) {
      expect(request.query.labelSelector).toBeUndefined();
    }
  });

  it('keeps the finalizer while finalize reports pending work, and releases it after', async () => {
    await client.mergePatch(WidgetKind, 'team-a', 'alpha', {
      metadata: { annotations: { [HOLD_ANNOTATION]: 'yes' } },
    });
    await operator.runtime.idle();
    await client.delete(WidgetKind, 'team-a', 'alpha');
    await eventually(() => journal.finalized.includes('team-a/alpha'), { timeoutMs: 5000 });
    await operator.runtime.idle();
    const held = server.get<Widget>(WidgetKind, 'team-a', 'alpha');
    expect(held?.metadata.finalizers).toEqual([HOLD_FINALIZER]);
    expect(held?.metadata.deletionTimestamp).toBeDefined();

    await client.mergePatch(WidgetKind, 'team-a', 'alpha', {
      metadata: { annotations: { [HOLD_ANNOTATION]: null } },
    });
    await eventually(() => server.get(WidgetKind, 'team-a', 'alpha') === undefined, {
      timeoutMs: 5000,
      what: 'the widget gone',
    });
    expect(journal.finalized.filter((key) => key === 'team-a/alpha').length).toBe(2);
  });
});
