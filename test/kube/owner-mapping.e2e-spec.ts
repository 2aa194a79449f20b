import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1OwnerReference } from '@kubernetes/client-node';
import { Inject, Injectable } from '@nestjs/common';
import {
  CoreKinds,
  type KindRef,
  KubeClient,
  type KubeObject,
  type ObjectName,
  ownerReference,
  type Reconciler,
} from '@platform/kube';
import { FakeKubeApiServer, eventually } from '@platform/testing';
import { type OperatorTestApp, startOperator, widget, WidgetKind } from './operator-test-app.js';
import { JOURNAL, Journal, type Widget } from './widget-reconciler.js';

const WIDGET_LABEL = 'test.k8s.neutral.com/widget';
const NIGHTLY_CRONJOB: V1OwnerReference = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  name: 'nightly-backup',
  uid: 'cronjob-uid',
  controller: true,
};
const WIDGET_NAMESPACE_LABEL = 'test.k8s.neutral.com/widget-namespace';

/** Widgets whose Jobs run under CronJobs: the Jobs name their widget in a label. */
@Injectable()
class ScheduledWidgetReconciler implements Reconciler<Widget> {
  readonly kind = WidgetKind;
  readonly owns = [CoreKinds.Job];
  readonly mapped: Array<{ child: string; kind: string }> = [];

  constructor(@Inject(JOURNAL) private readonly journal: Journal) {}

  ownerOf(child: KubeObject, kind: KindRef): ObjectName | undefined {
    this.mapped.push({ child: child.metadata.name!, kind: kind.kind });
    const labels = child.metadata.labels ?? {};
    if (!labels[WIDGET_LABEL]) return undefined;
    return { namespace: labels[WIDGET_NAMESPACE_LABEL], name: labels[WIDGET_LABEL] };
  }

  async reconcile(object: Widget): Promise<void> {
    this.journal.reconciled.push({
      name: `${object.metadata.namespace}/${object.metadata.name}`,
      atMs: 0,
      finalizers: [],
    });
  }
}

describe('Operator runtime: owners of children something else controls', () => {
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
      reconcilers: [ScheduledWidgetReconciler],
      providers: [{ provide: JOURNAL, useValue: journal }],
      operator: { leaderElection: false },
    });
    for (const name of ['nightly', 'hourly']) {
      await client.create(WidgetKind, widget(name));
    }
    await eventually(() => journal.reconciled.length >= 2, {
      timeoutMs: 5000,
      what: 'the first reconciles',
    });
    await operator.runtime.idle();
  });

  afterEach(async () => {
    await operator.close();
    await server.stop();
  });

  /** A Job as the CronJob controller creates it: controlled by its CronJob. */
  function cronJobRun(
    name: string,
    namespace: string,
    labels: Record<string, string>,
    controller: V1OwnerReference = NIGHTLY_CRONJOB,
  ): KubeObject {
    return {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace,
        labels,
        ownerReferences: [controller],
      },
      spec: { template: { spec: { containers: [{ name: 'restic', image: 'restic' }] } } },
    };
  }

  const reconciles = (key: string) =>
    journal.reconciled.filter((entry) => entry.name === key).length;

  it('reconciles the object ownerOf names for a child another object controls', async () => {
    const before = reconciles('team-a/nightly');
    server.put(
      CoreKinds.Job,
      cronJobRun('nightly-backup-1', 'team-a', { [WIDGET_LABEL]: 'nightly' }),
    );
    await eventually(() => reconciles('team-a/nightly') > before, {
      timeoutMs: 5000,
      what: 'the widget reconciled',
    });
    const reconciler = operator.get(ScheduledWidgetReconciler);
    expect(reconciler.mapped).toContainEqual({ child: 'nightly-backup-1', kind: 'Job' });

    // Its end is an event of the child too.
    const afterCreate = reconciles('team-a/nightly');
    const job = server.get<KubeObject>(CoreKinds.Job, 'team-a', 'nightly-backup-1')!;
    server.put(CoreKinds.Job, { ...job, status: { succeeded: 1 } });
    await eventually(() => reconciles('team-a/nightly') > afterCreate, {
      timeoutMs: 5000,
      what: 'reconciled again',
    });
    await operator.runtime.idle();
    expect(reconciles('team-a/hourly')).toBe(1);
  });

  it('takes the namespace ownerOf names, defaulting to the child’s', async () => {
    await client.create(WidgetKind, widget('shared', 'team-b'));
    await eventually(() => reconciles('team-b/shared') === 1);
    server.put(
      CoreKinds.Job,
      cronJobRun('shared-run', 'team-a', {
        [WIDGET_LABEL]: 'shared',
        [WIDGET_NAMESPACE_LABEL]: 'team-b',
      }),
    );
    await eventually(() => reconciles('team-b/shared') === 2, {
      timeoutMs: 5000,
      what: 'the other namespace',
    });
  });

  it('prefers the controller ownerReference, and queues nothing for a child ownerOf does not map', async () => {
    const nightly = server.get<Widget>(WidgetKind, 'team-a', 'nightly')!;
    const hourlyBefore = reconciles('team-a/hourly');
    const nightlyBefore = reconciles('team-a/nightly');
    server.put(
      CoreKinds.Job,
      cronJobRun('direct', 'team-a', { [WIDGET_LABEL]: 'hourly' }, ownerReference(nightly)),
    );
    await eventually(() => reconciles('team-a/nightly') > nightlyBefore, {
      timeoutMs: 5000,
      what: 'the controller',
    });
    server.put(CoreKinds.Job, cronJobRun('unlabelled', 'team-a', {}));
    await eventually(() =>
      operator.get(ScheduledWidgetReconciler).mapped.some((m) => m.child === 'unlabelled'),
    );
    await operator.runtime.idle();
    expect(reconciles('team-a/hourly')).toBe(hourlyBefore);
    expect(journal.reconciled.map((entry) => entry.name)).not.toContain('team-a/unlabelled');
  });
});
