import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import {
  type FinalizeResult,
  isKubeApiError,
  KubeClient,
  type KubeObject,
  type Reconciler,
} from '@platform/kube';
import { eventually, FakeKubeApiServer } from '@platform/testing';
import { type OperatorTestApp, startOperator, widget, WidgetKind } from './operator-test-app.js';

const FINALIZER = 'test.k8s.neutral.com/in-use';
/** Widgets whose cleanup answers "not yet" while listed here. */
const holding = new Set<string>();
const finalizeCalls: string[] = [];

/** Keeps a widget while something holds it; looks again every minute by the clock. */
@Injectable()
class HeldWidgetReconciler implements Reconciler {
  readonly kind = WidgetKind;
  readonly finalizer = FINALIZER;

  async reconcile(): Promise<void> {}

  async finalize(object: KubeObject): Promise<FinalizeResult | void> {
    const name = object.metadata.name!;
    finalizeCalls.push(name);
    if (holding.has(name)) return { pending: true, requeueAfterMs: 60_000 };
  }
}

describe('Operator runtime: a finalize that is not finished yet', () => {
  let server: FakeKubeApiServer;
  let client: KubeClient;
  let operator: OperatorTestApp | undefined;

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    server.registerKind({ ...WidgetKind, statusSubresource: true });
    client = KubeClient.fromKubeConfig(server.kubeConfig());
    holding.clear();
    finalizeCalls.length = 0;
  });

  afterEach(async () => {
    await operator?.close();
    operator = undefined;
    await server.stop();
  });

  it('keeps the finalizer while finalize answers pending, and runs it again after requeueAfterMs', async () => {
    operator = await startOperator({
      server,
      reconcilers: [HeldWidgetReconciler],
      operator: { leaderElection: false },
    });
    await client.create(WidgetKind, widget('held'));
    await eventually(() =>
      server
        .get<KubeObject>(WidgetKind, 'team-a', 'held')
        ?.metadata.finalizers?.includes(FINALIZER),
    );
    holding.add('held');
    await client.delete(WidgetKind, 'team-a', 'held');
    await eventually(() => finalizeCalls.length === 1, 'the first finalize');
    await operator.runtime.idle();
    const stored = server.get<KubeObject>(WidgetKind, 'team-a', 'held')!;
    expect(stored.metadata.finalizers).toEqual([FINALIZER]);
    expect(stored.metadata.deletionTimestamp).toBeDefined();

    operator.clock.advance({ seconds: 59 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(finalizeCalls).toEqual(['held']);

    holding.delete('held');
    operator.clock.advance({ seconds: 1 });
    await eventually(() => server.get(WidgetKind, 'team-a', 'held') === undefined, 'deleted');
    expect(finalizeCalls).toEqual(['held', 'held']);
  });
});

describe('KubeClient.delete with preconditions', () => {
  let server: FakeKubeApiServer;
  let client: KubeClient;

  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    server.registerKind({ ...WidgetKind, statusSubresource: true });
    client = KubeClient.fromKubeConfig(server.kubeConfig());
  });

  afterEach(async () => {
    await server.stop();
  });

  it('refuses with 409 Conflict when the object changed since the resourceVersion read, deletes otherwise', async () => {
    const created = await client.create<KubeObject>(WidgetKind, widget('pre'));
    const changed = await client.mergePatch<KubeObject>(WidgetKind, 'team-a', 'pre', {
      spec: { size: 2 },
    });

    const refusal = await client
      .delete(WidgetKind, 'team-a', 'pre', {
        preconditions: { resourceVersion: created.metadata.resourceVersion },
      })
      .catch((error: unknown) => error);
    expect(isKubeApiError(refusal, 409)).toBe(true);
    expect((refusal as { reason?: string }).reason).toBe('Conflict');
    expect(server.get(WidgetKind, 'team-a', 'pre')).toBeDefined();

    await client.delete(WidgetKind, 'team-a', 'pre', {
      preconditions: { resourceVersion: changed.metadata.resourceVersion },
    });
    expect(server.get(WidgetKind, 'team-a', 'pre')).toBeUndefined();
  });
});
