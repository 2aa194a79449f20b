import type { LoggerService } from '@nestjs/common';
import type { KindRef, KubeObject } from './kinds.js';
import type { KubeClient } from './kube-client.js';
import { Informer, type InformerEvent, type InformerOptions } from './informer.js';
import { CombinedCache, type ObjectCache } from './object-store.js';

/** The informers of one kind: one per watched namespace, or one for the whole cluster. */
export class InformerGroup<T extends KubeObject = KubeObject> {
  readonly informers: Informer<T>[];
  readonly cache: ObjectCache<T>;

  constructor(
    client: KubeClient,
    readonly kind: KindRef,
    options: {
      namespaces: string[];
      labelSelector?: string;
      logger: LoggerService;
    } & Pick<InformerOptions, 'retryDelayMs' | 'maxRetryDelayMs' | 'watchTimeoutSeconds'>,
  ) {
    const { namespaces, ...rest } = options;
    const scopes: Array<string | undefined> =
      kind.namespaced && namespaces.length > 0 ? namespaces : [undefined];
    this.informers = scopes.map(
      (namespace) => new Informer<T>(client, kind, { ...rest, namespace }),
    );
    this.cache =
      this.informers.length === 1
        ? this.informers[0].store
        : new CombinedCache(this.informers.map((informer) => informer.store));
  }

  get hasSynced(): boolean {
    return this.informers.every((informer) => informer.hasSynced);
  }

  async whenSynced(): Promise<void> {
    await Promise.all(this.informers.map((informer) => informer.whenSynced()));
  }

  onEvent(listener: (event: InformerEvent<T>) => void): void {
    for (const informer of this.informers) informer.onEvent(listener);
  }

  all(): T[] {
    return this.informers.flatMap((informer) => [...informer.store.all()]);
  }

  start(): void {
    for (const informer of this.informers) informer.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((informer) => informer.stop()));
  }
}
