import type { KubeObject } from './kinds.js';
import { matchesLabels } from './label-selector.js';

/** Read-only view of an informer's cache. */
export interface ObjectCache<T extends KubeObject> {
  get(namespace: string | undefined, name: string): T | undefined;
  list(namespace?: string, labelSelector?: Record<string, string>): T[];
}

const CLUSTER_SCOPE = '';

/** Objects of one kind, indexed by namespace then name. */
export class ObjectStore<T extends KubeObject> implements ObjectCache<T> {
  private readonly byNamespace = new Map<string, Map<string, T>>();
  private count = 0;

  /** A point-in-time list as a cache: for a cluster nothing watches, read afresh each pass. */
  static of<T extends KubeObject>(objects: Iterable<T>): ObjectStore<T> {
    const store = new ObjectStore<T>();
    for (const object of objects) store.put(object);
    return store;
  }

  get size(): number {
    return this.count;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.byNamespace.get(namespace ?? CLUSTER_SCOPE)?.get(name);
  }

  list(namespace?: string, labelSelector?: Record<string, string>): T[] {
    const scopes =
      namespace === undefined
        ? [...this.byNamespace.values()]
        : [this.byNamespace.get(namespace) ?? new Map<string, T>()];
    const result: T[] = [];
    for (const scope of scopes) {
      for (const object of scope.values()) {
        if (matchesLabels(object.metadata.labels, labelSelector)) result.push(object);
      }
    }
    return result;
  }

  /** Stores the object; returns the one it replaced. */
  put(object: T): T | undefined {
    const namespace = object.metadata.namespace ?? CLUSTER_SCOPE;
    let scope = this.byNamespace.get(namespace);
    if (!scope) {
      scope = new Map();
      this.byNamespace.set(namespace, scope);
    }
    const name = object.metadata.name ?? '';
    const previous = scope.get(name);
    scope.set(name, object);
    if (!previous) this.count += 1;
    return previous;
  }

  /** Removes the object; returns what was stored. */
  remove(namespace: string | undefined, name: string): T | undefined {
    const scope = this.byNamespace.get(namespace ?? CLUSTER_SCOPE);
    const previous = scope?.get(name);
    if (scope && previous) {
      scope.delete(name);
      this.count -= 1;
      if (scope.size === 0) this.byNamespace.delete(namespace ?? CLUSTER_SCOPE);
    }
    return previous;
  }

  *all(): Iterable<T> {
    for (const scope of this.byNamespace.values()) yield* scope.values();
  }
}

/** One cache over several stores (one informer per watched namespace). */
export class CombinedCache<T extends KubeObject> implements ObjectCache<T> {
  constructor(private readonly caches: ObjectCache<T>[]) {}

  get(namespace: string | undefined, name: string): T | undefined {
    for (const cache of this.caches) {
      const object = cache.get(namespace, name);
      if (object) return object;
    }
    return undefined;
  }

  list(namespace?: string, labelSelector?: Record<string, string>): T[] {
    return this.caches.flatMap((cache) => cache.list(namespace, labelSelector));
  }
}
