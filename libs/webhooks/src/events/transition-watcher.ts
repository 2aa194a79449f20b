import type { LoggerService } from '@nestjs/common';
import { type Clock, SystemClock } from '@platform/core';
import {
  Informer,
  type InformerEvent,
  type KindRef,
  type KubeClient,
  type KubeObject,
  WorkQueue,
} from '@platform/kube';
import type { WebhookEvents, WebhookEventType } from '../delivery/webhook-events.service.js';

/** A transition an object's state stands for, as an event to tell its organization. */
export interface ObjectTransition {
  type: WebhookEventType;
  /** Names this transition among the object's (`deployed:<revision>:<generation>`, `ready`). */
  transition: string;
  /** When it happened, as the object says; undefined when it does not say. */
  occurredAt?: Date;
  data: Record<string, unknown>;
}

/** What a library tells the watcher about its kind of object. */
export interface TransitionSource<T extends KubeObject> {
  /** The claims' source (`helmrelease`, `shoot`). */
  source: string;
  kind: KindRef;
  /** The platform's objects: only these are listed and watched. */
  labelSelector: string;
  /** The transition the object's state stands for now, if any. */
  transitionOf(object: T): ObjectTransition | null;
  /** The organization to tell; null when the object turns out not to be the platform's. */
  organizationOf(object: T): Promise<string | null>;
}

export interface TransitionWatcherOptions {
  /**
   * How old a transition found done (in the first list, or after a relist) may be and still be
   * told: older ones happened before the watcher could see them (the feature deployed into a
   * running cluster, a worker down for long) and are history, not news.
   */
  catchUpMs: number;
  logger: LoggerService;
}

interface Pending<T> {
  object: T;
  transition: ObjectTransition;
}

/**
 * Turns state changes of a kind of Kubernetes object into organization webhook events: one
 * list-and-watch of the platform's objects (by label, across namespaces); an object whose
 * state comes to stand for a transition it did not stand for before is told once through
 * `WebhookEvents.emitOnce`, whose claim makes it once across worker replicas and restarts.
 * An object first seen (at start-up) already past a transition is told only within the
 * catch-up window. Emissions that fail are retried with backoff, each transition on its own.
 */
export class TransitionWatcher<T extends KubeObject> {
  private readonly informer: Informer<T>;
  private readonly queue: WorkQueue;
  private readonly pending = new Map<string, Pending<T>>();

  constructor(
    kube: KubeClient,
    private readonly source: TransitionSource<T>,
    private readonly events: WebhookEvents,
    private readonly clock: Clock,
    private readonly options: TransitionWatcherOptions,
  ) {
    this.informer = new Informer<T>(kube, source.kind, {
      labelSelector: source.labelSelector,
      logger: options.logger,
    });
    this.informer.onEvent((event) => this.observe(event));
    // A failed emission (the database or Redis away) is retried from 1 s, doubling up to 30 s,
    // in real time whatever clock the platform's rules read.
    this.queue = new WorkQueue({
      workers: 4,
      clock: new SystemClock(),
      baseDelayMs: 1000,
      maxDelayMs: 30_000,
      jitter: 0.2,
      process: (key) => this.emit(key),
      onFailure: (key, error, attempt, retryInMs) => {
        const reason = error instanceof Error ? error.message : String(error);
        options.logger.warn(
          `${source.source} event ${key} not emitted (attempt ${attempt}, retrying in ${retryInMs} ms): ${reason}`,
        );
      },
    });
  }

  /** True once the first list is in (tests wait for it). */
  get synced(): boolean {
    return this.informer.hasSynced;
  }

  whenSynced(): Promise<void> {
    return this.informer.whenSynced();
  }

  /** Resolves when no emission is queued or running (failed ones may wait for a retry). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  start(): void {
    this.queue.start();
    this.informer.start();
  }

  async stop(): Promise<void> {
    await this.informer.stop();
    await this.queue.stop();
  }

  private observe(event: InformerEvent<T>): void {
    if (event.type === 'deleted') return;
    const transition = this.source.transitionOf(event.object);
    if (!transition) return;
    if (event.type === 'updated') {
      // Seen happen: told, however late the watch delivered it.
      const before = this.source.transitionOf(event.previous);
      if (before?.transition === transition.transition) return;
    } else if (!this.recent(transition)) {
      return;
    }
    const uid = event.object.metadata.uid;
    if (!uid) return;
    const key = `${uid}/${transition.transition}`;
    if (this.pending.has(key)) return;
    this.pending.set(key, { object: event.object, transition });
    this.queue.add(key);
  }

  private recent(transition: ObjectTransition): boolean {
    if (!transition.occurredAt || Number.isNaN(transition.occurredAt.getTime())) return true;
    return this.clock.nowMs() - transition.occurredAt.getTime() <= this.options.catchUpMs;
  }

  private async emit(key: string): Promise<void> {
    const entry = this.pending.get(key);
    if (!entry) return;
    const { object, transition } = entry;
    const organizationId = await this.source.organizationOf(object);
    if (organizationId) {
      await this.events.emitOnce(
        {
          source: this.source.source,
          objectUid: object.metadata.uid!,
          transition: transition.transition,
        },
        organizationId,
        transition.type,
        transition.data,
      );
    }
    this.pending.delete(key);
  }
}
