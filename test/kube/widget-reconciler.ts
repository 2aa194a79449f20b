import { Inject, Injectable } from '@nestjs/common';
import {
  type Condition,
  CoreKinds,
  ensureObject,
  type KubeObject,
  ownerReference,
  type ReconcileContext,
  type Reconciler,
  type ReconcileResult,
  setCondition,
  writeStatus,
} from '@platform/kube';
import { WidgetKind, type WidgetSpec } from './operator-test-app.js';

export type Widget = KubeObject<
  WidgetSpec,
  { phase?: string; conditions?: Condition[]; observedGeneration?: number }
>;

export const WIDGET_FINALIZER = 'test.k8s.neutral.com/cleanup';
export const JOURNAL = Symbol('JOURNAL');

/** What a replica's reconciler did, and how the test wants it to behave. */
export class Journal {
  readonly reconciled: Array<{
    name: string;
    atMs: number;
    generation?: number;
    finalizers: string[];
  }> = [];
  readonly finalized: string[] = [];
  /** Reconciles of a widget that throw before it succeeds. */
  readonly failuresLeft = new Map<string, number>();
  readonly requeueAfterMs = new Map<string, number>();
  /** Reconciles of a widget wait for this before finishing. */
  hold: Promise<void> | undefined;
  running = 0;
  mostAtOnce = 0;

  count(name: string): number {
    return this.reconciled.filter((entry) => entry.name === name).length;
  }
}

/**
 * A reconciler shaped like the operators' own: a finalizer, an owned CronJob kept as desired
 * through ensureObject with an owner reference, and a status with a condition.
 */
@Injectable()
export class WidgetReconciler implements Reconciler<Widget> {
  readonly kind = WidgetKind;
  readonly owns = [CoreKinds.CronJob];
  readonly ownsSelector = 'app.kubernetes.io/managed-by=test-operator';
  readonly finalizer = WIDGET_FINALIZER;

  constructor(@Inject(JOURNAL) private readonly journal: Journal) {}

  async reconcile(widget: Widget, context: ReconcileContext): Promise<ReconcileResult | void> {
    const name = widget.metadata.name!;
    this.journal.reconciled.push({
      name,
      atMs: context.clock.nowMs(),
      generation: widget.metadata.generation,
      finalizers: widget.metadata.finalizers ?? [],
    });
    this.journal.running += 1;
    this.journal.mostAtOnce = Math.max(this.journal.mostAtOnce, this.journal.running);
    try {
      await this.journal.hold;
      const failures = this.journal.failuresLeft.get(name) ?? 0;
      if (failures > 0) {
        this.journal.failuresLeft.set(name, failures - 1);
        throw new Error(`widget ${name} is not ready yet`);
      }
      await ensureObject(context, CoreKinds.CronJob, {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: {
          name: `${name}-backup`,
          namespace: widget.metadata.namespace,
          labels: { 'app.kubernetes.io/managed-by': 'test-operator' },
          ownerReferences: [ownerReference(widget)],
        },
        spec: {
          schedule: widget.spec?.schedule ?? '0 3 * * *',
          jobTemplate: {
            spec: {
              template: { spec: { containers: [{ name: 'restic', image: 'restic:0.18.1' }] } },
            },
          },
        },
      });
      await writeStatus(context, WidgetKind, widget, {
        phase: 'Ready',
        conditions: setCondition(
          widget.status?.conditions,
          { type: 'Ready', status: 'True', reason: 'Reconciled' },
          context.clock.now(),
        ),
      });
      const requeue = this.journal.requeueAfterMs.get(name);
      return requeue ? { requeueAfterMs: requeue } : undefined;
    } finally {
      this.journal.running -= 1;
    }
  }

  async finalize(widget: Widget): Promise<void> {
    this.journal.finalized.push(widget.metadata.name!);
  }
}
