import type { LoggerService } from '@nestjs/common';
import type { Clock } from '@platform/core';
import type { KindRef, KubeObject } from './kinds.js';
import type { KubeClient } from './kube-client.js';
import type { ObjectCache } from './object-store.js';

export interface ReconcileContext {
  client: KubeClient;
  /** The informer cache of a kind the reconciler watches or owns; throws for any other kind. */
  cache<T extends KubeObject>(kind: KindRef): ObjectCache<T>;
  clock: Clock;
  logger: LoggerService;
}

export interface ObjectName {
  namespace?: string;
  name: string;
}

export interface ReconcileResult {
  requeueAfterMs?: number;
}

/**
 * What finalize() may answer when the cleanup cannot finish yet (e.g. the object is still in
 * use): the finalizer stays, and finalize runs again on the next event that queues the object,
 * or after `requeueAfterMs`.
 */
export interface FinalizeResult {
  pending: true;
  requeueAfterMs?: number;
}

export interface Reconciler<T extends KubeObject = KubeObject> {
  readonly kind: KindRef;
  /** Child kinds: their events enqueue the owner found through a controller ownerReference (same kind). */
  readonly owns?: KindRef[];
  /**
   * The object to reconcile for an event of an owned kind whose controller ownerReference does
   * not name an object of this kind: children that something else controls, such as the Jobs a
   * CronJob creates, found through a label. The namespace defaults to the child's. Several
   * objects when one child concerns many (an instance every Talk server registers with);
   * `context` gives the caches to find them.
   */
  ownerOf?(
    child: KubeObject,
    kind: KindRef,
    context: ReconcileContext,
  ): ObjectName | ObjectName[] | undefined;
  /**
   * Label selector (API string form) of the watches of the owned kinds, so the operator caches
   * only its own children rather than every Job or claim of the cluster. A function chooses per
   * kind (undefined: every object), for owned kinds that are not all labelled alike.
   */
  readonly ownsSelector?: string | ((kind: KindRef) => string | undefined);
  /**
   * Added before the first reconcile; on deletion finalize() runs, then the finalizer is removed
   * unless finalize answered `{pending: true}`.
   */
  readonly finalizer?: string;
  reconcile(object: T, context: ReconcileContext): Promise<ReconcileResult | void>;
  finalize?(object: T, context: ReconcileContext): Promise<FinalizeResult | void>;
}
