import type { LoggerService } from '@nestjs/common';
import { type KindRef, kindId, type KubeObject, objectKey } from './kinds.js';
import type { KubeClient, WatchEnd, WatchEvent } from './kube-client.js';
import { type Labels, parseLabelSelector } from './label-selector.js';
import { ObjectStore } from './object-store.js';

export type InformerEvent<T extends KubeObject> =
  | { type: 'added'; object: T }
  | { type: 'updated'; object: T; previous: T }
  | { type: 'deleted'; object: T };

export interface InformerOptions {
  /** Watch one namespace; all namespaces when absent (and always for cluster-scoped kinds). */
  namespace?: string;
  labelSelector?: string;
  logger: LoggerService;
  /** First delay after a failed list or watch; doubles per failure up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** How long the server keeps one watch open; randomised so replicas do not reconnect together. */
  watchTimeoutSeconds?: () => number;
  /** A stream that sent nothing for this long (bookmarks included) is dropped and resumed. */
  idleTimeoutMs?: number;
}

/** A watch that ends this soon without an event is resumed after a pause, not at once. */
const SHORT_WATCH_MS = 1000;

/**
 * List-then-watch cache of one kind. A watch that ends is resumed from the last
 * resourceVersion it saw (events and bookmarks advance it); a 410 Gone relists, and the
 * relist is compared with the cache so that objects created, changed or deleted while the
 * watch was broken still produce their events.
 */
export class Informer<T extends KubeObject = KubeObject> {
  readonly store = new ObjectStore<T>();
  private readonly listeners: Array<(event: InformerEvent<T>) => void> = [];
  private readonly selects: (labels: Labels) => boolean;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private resourceVersion = '';
  private running = false;
  private loop: Promise<void> | undefined;
  private watch: { stop(): void } | undefined;
  private wake: (() => void) | undefined;
  private synced = false;
  private readonly syncWaiters: Array<() => void> = [];

  constructor(
    private readonly client: KubeClient,
    readonly kind: KindRef,
    private readonly options: InformerOptions,
  ) {
    this.selects = options.labelSelector ? parseLabelSelector(options.labelSelector) : () => true;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
  }

  get namespace(): string | undefined {
    return this.kind.namespaced ? this.options.namespace : undefined;
  }

  get labelSelector(): string | undefined {
    return this.options.labelSelector;
  }

  /** True once the first list is in the cache (and from then on). */
  get hasSynced(): boolean {
    return this.synced;
  }

  /** The resourceVersion the next watch starts from ('' before the first list). */
  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  onEvent(listener: (event: InformerEvent<T>) => void): void {
    this.listeners.push(listener);
  }

  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Ends the watch; resolves when the loop has stopped. The cache stays readable. */
  async stop(): Promise<void> {
    this.running = false;
    this.watch?.stop();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        if (!this.resourceVersion) await this.relist();
        if (!this.running) break;
        const started = Date.now();
        let events = 0;
        const end = await this.watchOnce(() => (events += 1));
        if (end.reason === 'failed') throw end.error;
        failures = 0;
        if (end.reason === 'expired') {
          this.options.logger.log(
            `watch of ${this.describe()} expired at resourceVersion ${this.resourceVersion}; relisting`,
          );
          this.resourceVersion = '';
        } else if (
          end.reason === 'closed' &&
          events === 0 &&
          Date.now() - started < SHORT_WATCH_MS
        ) {
          await this.sleep(this.retryDelayMs);
        }
      } catch (error) {
        failures += 1;
        const delay = Math.min(this.retryDelayMs * 2 ** (failures - 1), this.maxRetryDelayMs);
        this.options.logger.warn(
          `${this.resourceVersion ? 'watch' : 'list'} of ${this.describe()} failed ` +
            `(${error instanceof Error ? error.message : String(error)}); retrying in ${delay} ms`,
        );
        await this.sleep(delay);
      }
    }
  }

  private async relist(): Promise<void> {
    const { items, resourceVersion } = await this.client.list<T>(this.kind, this.namespace, {
      labelSelector: this.options.labelSelector,
    });
    const listed = new Set<string>();
    for (const object of items) {
      withoutManagedFields(object);
      listed.add(objectKey(object));
      const previous = this.store.put(object);
      if (!previous) this.emit({ type: 'added', object });
      else if (previous.metadata.resourceVersion !== object.metadata.resourceVersion) {
        this.emit({ type: 'updated', object, previous });
      }
    }
    for (const object of [...this.store.all()]) {
      if (listed.has(objectKey(object))) continue;
      this.store.remove(object.metadata.namespace, object.metadata.name ?? '');
      this.emit({ type: 'deleted', object });
    }
    this.resourceVersion = resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  private async watchOnce(counted: () => void): Promise<WatchEnd> {
    const handle = this.client.watch<T>(
      this.kind,
      this.namespace,
      {
        resourceVersion: this.resourceVersion,
        labelSelector: this.options.labelSelector,
        timeoutSeconds: (this.options.watchTimeoutSeconds ?? defaultWatchTimeout)(),
        idleTimeoutMs: this.options.idleTimeoutMs ?? 5 * 60_000,
      },
      (event) => {
        counted();
        this.apply(event);
      },
    );
    this.watch = handle;
    if (!this.running) handle.stop();
    try {
      return await handle.done;
    } finally {
      this.watch = undefined;
    }
  }

  private apply(event: WatchEvent<T>): void {
    const { object } = event;
    const version = object.metadata?.resourceVersion;
    if (event.type !== 'BOOKMARK') {
      const namespace = object.metadata.namespace;
      const name = object.metadata.name ?? '';
      if (event.type === 'DELETED' || !this.selects(object.metadata.labels)) {
        const previous = this.store.remove(namespace, name);
        if (previous) this.emit({ type: 'deleted', object });
      } else {
        const previous = this.store.put(withoutManagedFields(object));
        this.emit(previous ? { type: 'updated', object, previous } : { type: 'added', object });
      }
    }
    if (version) this.resourceVersion = version;
  }

  private emit(event: InformerEvent<T>): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.logger.error(
          `handler of ${this.describe()} events failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private describe(): string {
    const scope = this.namespace ? ` in ${this.namespace}` : '';
    const selector = this.options.labelSelector ? ` (${this.options.labelSelector})` : '';
    return `${kindId(this.kind)}${scope}${selector}`;
  }
}

/**
 * Server-side apply bookkeeping often outweighs the rest of an object; reconcilers never read
 * it, so the cache does not keep it (client-go operators commonly strip it the same way).
 */
function withoutManagedFields<T extends KubeObject>(object: T): T {
  if (object.metadata?.managedFields) delete object.metadata.managedFields;
  return object;
}

/** Like client-go: between five and ten minutes. */
function defaultWatchTimeout(): number {
  return Math.floor(300 + Math.random() * 300);
}
