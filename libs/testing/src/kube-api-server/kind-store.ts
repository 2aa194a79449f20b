import { expired } from './errors.js';
import { type KindRegistration, apiVersionOf } from './kinds.js';
import type { StoredEntry, StoredEvent } from './objects.js';

export type EventListener = (event: StoredEvent) => void;

/** Objects of one kind by namespace and name, with the recent events watches resume from. */
export class KindStore {
  readonly apiVersion: string;
  private readonly byNamespace = new Map<string, Map<string, StoredEntry>>();
  private history: StoredEvent[] = [];
  /** A watch may resume from this resourceVersion or any later one; older ones are gone. */
  private compactedRv = 0;
  private readonly listeners = new Set<EventListener>();
  private count = 0;

  constructor(
    public registration: KindRegistration,
    private readonly historyLimit: number,
  ) {
    this.apiVersion = apiVersionOf(registration);
  }

  get size(): number {
    return this.count;
  }

  get(namespace: string, name: string): StoredEntry | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  /** Entries in the order of the real server's storage keys ("<namespace>/<name>"). */
  entries(namespace?: string): StoredEntry[] {
    if (namespace !== undefined) {
      return [...(this.byNamespace.get(namespace)?.values() ?? [])].sort((a, b) =>
        compare(a.name, b.name),
      );
    }
    const all: StoredEntry[] = [];
    for (const bucket of this.byNamespace.values())
      for (const entry of bucket.values()) all.push(entry);
    return all.sort((a, b) => compare(storageKey(a), storageKey(b)));
  }

  namespaces(): string[] {
    return [...this.byNamespace.keys()];
  }

  set(entry: StoredEntry): void {
    let bucket = this.byNamespace.get(entry.namespace);
    if (!bucket) this.byNamespace.set(entry.namespace, (bucket = new Map()));
    if (!bucket.has(entry.name)) this.count++;
    bucket.set(entry.name, entry);
  }

  delete(entry: StoredEntry): void {
    const bucket = this.byNamespace.get(entry.namespace);
    if (bucket?.delete(entry.name)) this.count--;
    if (bucket?.size === 0) this.byNamespace.delete(entry.namespace);
  }

  record(event: StoredEvent): void {
    this.history.push(event);
    // Trimming in batches keeps the cost of a write constant.
    if (this.history.length > this.historyLimit + Math.ceil(this.historyLimit / 4)) {
      const dropped = this.history.length - this.historyLimit;
      this.compactedRv = this.history[dropped - 1].rv;
      this.history = this.history.slice(dropped);
    }
    for (const listener of this.listeners) listener(event);
  }

  /** Events after `rv`; 410 Expired when some of them are no longer kept. */
  eventsSince(rv: number): StoredEvent[] {
    if (rv < this.compactedRv) {
      throw expired(`too old resource version: ${rv} (${this.compactedRv})`);
    }
    let low = 0;
    let high = this.history.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.history[middle].rv <= rv) low = middle + 1;
      else high = middle;
    }
    return this.history.slice(low);
  }

  /** Forgets every event up to `rv`: watches from an older resourceVersion answer 410. */
  compact(rv: number): void {
    this.history = [];
    this.compactedRv = Math.max(this.compactedRv, rv);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const storageKey = (entry: StoredEntry) => `${entry.namespace}/${entry.name}`;
