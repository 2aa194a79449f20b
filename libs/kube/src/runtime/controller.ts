import type { LoggerService } from '@nestjs/common';
import type { Clock } from '@platform/core';
import type { InformerEvent } from './informer.js';
import type { InformerGroup } from './informer-group.js';
import {
  groupOf,
  type KindRef,
  kindId,
  type KubeObject,
  keyOf,
  objectKey,
  splitKey,
} from './kinds.js';
import type { KubeClient } from './kube-client.js';
import type { ObjectCache } from './object-store.js';
import type { OperatorMetrics } from './operator-metrics.js';
import type { ReconcileContext, Reconciler, ReconcileResult } from './reconciler.js';
import { WorkQueue } from './work-queue.js';

export interface ControllerOptions {
  client: KubeClient;
  clock: Clock;
  logger: LoggerService;
  metrics: OperatorMetrics;
  workers: number;
  retryBaseMs: number;
  retryMaxMs: number;
  retryJitter: number;
  clockCheckMs: number;
}

/**
 * Runs one reconciler: events of its kind, and of the kinds it owns (through the controller
 * ownerReference), queue the object's key while the controller is active (this replica leads
 * and the caches are synced); the queue calls reconcile with a copy of the cached object,
 * handling the finalizer around it.
 */
export class Controller<T extends KubeObject = KubeObject> {
  readonly queue: WorkQueue;
  readonly context: ReconcileContext;
  private active = false;
  private readonly label: string;

  constructor(
    readonly reconciler: Reconciler<T>,
    private readonly primary: InformerGroup<T>,
    owned: InformerGroup[],
    private readonly options: ControllerOptions,
  ) {
    this.label = reconciler.kind.kind;
    const caches = new Map<string, ObjectCache<KubeObject>>();
    for (const group of [primary as unknown as InformerGroup, ...owned]) {
      caches.set(kindId(group.kind), group.cache);
    }
    this.context = {
      client: options.client,
      clock: options.clock,
      logger: options.logger,
      cache: <C extends KubeObject>(kind: KindRef): ObjectCache<C> => {
        const cache = caches.get(kindId(kind));
        if (!cache) {
          throw new Error(`${this.label} neither watches nor owns ${kind.kind}: no cache for it`);
        }
        return cache as unknown as ObjectCache<C>;
      },
    };
    this.queue = new WorkQueue({
      workers: options.workers,
      clock: options.clock,
      baseDelayMs: options.retryBaseMs,
      maxDelayMs: options.retryMaxMs,
      jitter: options.retryJitter,
      clockCheckMs: options.clockCheckMs,
      process: (key) => this.process(key),
      onFailure: (key, error, attempt, retryInMs) => {
        options.logger.warn(
          `reconcile of ${this.label} ${key} failed (attempt ${attempt}; retrying in ${retryInMs} ms): ` +
            (error instanceof Error ? error.message : String(error)),
        );
      },
      onDepthChange: (depth) => options.metrics.queueDepth.set({ kind: this.label }, depth),
    });
    options.metrics.queueDepth.set({ kind: this.label }, 0);
    primary.onEvent((event) => this.enqueue(objectKey(event.object)));
    for (const group of owned) group.onEvent((event) => this.enqueueOwners(group.kind, event));
  }

  get isActive(): boolean {
    return this.active;
  }

  /** Starts reconciling: every cached object is queued once. */
  activate(): void {
    this.active = true;
    this.queue.start();
    this.resync();
  }

  /** Stops reconciling: waits for running reconciles and forgets what was queued. */
  async deactivate(): Promise<void> {
    this.active = false;
    await this.queue.stop();
    this.queue.clear();
  }

  /** Queues every cached object of the kind (periodic resync). */
  resync(): void {
    if (!this.active) return;
    for (const object of this.primary.all()) this.queue.add(objectKey(object));
  }

  private enqueue(key: string): void {
    if (this.active) this.queue.add(key);
  }

  private enqueueOwners(childKind: KindRef, event: InformerEvent<KubeObject>): void {
    const keys = new Set<string>();
    const add = (child: KubeObject) => {
      for (const key of this.ownerKeys(childKind, child)) keys.add(key);
    };
    add(event.object);
    if (event.type === 'updated') add(event.previous);
    for (const key of keys) this.enqueue(key);
  }

  /**
   * The key of the child's controller owner when that owner is of this controller's kind, else
   * of the objects the reconciler's ownerOf names.
   */
  private ownerKeys(childKind: KindRef, child: KubeObject): string[] {
    const { group, kind, namespaced } = this.reconciler.kind;
    const scope = (namespace: string | undefined) => (namespaced ? namespace : undefined);
    const controller = child.metadata.ownerReferences?.find(
      (reference) =>
        reference.controller === true &&
        reference.kind === kind &&
        groupOf(reference.apiVersion) === group,
    );
    if (controller) return [keyOf(scope(child.metadata.namespace), controller.name)];
    const owners = this.reconciler.ownerOf?.(child, childKind, this.context) ?? [];
    return (Array.isArray(owners) ? owners : [owners])
      .filter((owner) => owner.name)
      .map((owner) => keyOf(scope(owner.namespace ?? child.metadata.namespace), owner.name));
  }

  private async process(key: string): Promise<ReconcileResult | void> {
    const stopTimer = this.options.metrics.reconcileDuration.startTimer({ kind: this.label });
    try {
      const result = await this.reconcileKey(key);
      this.options.metrics.reconciles.inc({ kind: this.label, result: 'success' });
      return result;
    } catch (error) {
      this.options.metrics.reconciles.inc({ kind: this.label, result: 'error' });
      this.options.metrics.reconcileErrors.inc({ kind: this.label });
      throw error;
    } finally {
      stopTimer();
    }
  }

  private async reconcileKey(key: string): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const cached = this.primary.cache.get(namespace, name);
    if (!cached) return;
    // Reconcilers may change what they are given; the cache must keep what the server said.
    const object = structuredClone(cached);
    const { kind, finalizer } = this.reconciler;
    const finalizers = object.metadata.finalizers ?? [];
    if (object.metadata.deletionTimestamp) {
      if (finalizer && finalizers.includes(finalizer)) return this.finalize(object, finalizer);
      return;
    }
    if (finalizer && !finalizers.includes(finalizer)) {
      const patched = await this.options.client.mergePatch<T>(kind, namespace, name, {
        metadata: {
          finalizers: [...finalizers, finalizer],
          resourceVersion: object.metadata.resourceVersion,
        },
      });
      object.metadata = patched.metadata;
    }
    return this.reconciler.reconcile(object, this.context);
  }

  private async finalize(object: T, finalizer: string): Promise<ReconcileResult | void> {
    const { kind } = this.reconciler;
    const { namespace, name = '' } = object.metadata;
    const result = await this.reconciler.finalize?.(object, this.context);
    if (result?.pending) return { requeueAfterMs: result.requeueAfterMs };
    // Finalize may have written the object: take the finalizer out of what is stored now.
    const live = await this.options.client.get<T>(kind, namespace, name);
    const current = live?.metadata.finalizers ?? [];
    if (!live || !current.includes(finalizer)) return;
    await this.options.client.mergePatch(kind, namespace, name, {
      metadata: {
        finalizers: current.filter((entry) => entry !== finalizer),
        resourceVersion: live.metadata.resourceVersion,
      },
    });
  }
}
