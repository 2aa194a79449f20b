import type { ServerResponse } from 'node:http';
import { KubeStatusError, badRequest, expired } from './errors.js';
import type { KindStore } from './kind-store.js';
import type { StoredEntry, StoredEvent, WatchEventType } from './objects.js';
import type { FieldSelector, LabelSelector } from './selectors.js';

export interface WatchRequest {
  store: KindStore;
  namespace?: string;
  labels?: LabelSelector;
  fields?: FieldSelector;
  /** Absent or "0": start with ADDED events for the current objects. */
  resourceVersion?: string;
  bookmarks: boolean;
  /** Current objects first, then a bookmark annotated k8s.io/initial-events-end (watch-list). */
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

/** The open watch streams of a server. */
export class WatchHub {
  private readonly streams = new Set<WatchStream>();

  constructor(
    private readonly currentResourceVersion: () => number,
    private readonly bookmarkIntervalMs: number,
  ) {}

  get open(): number {
    return this.streams.size;
  }

  /** Answers a watch request: 200 and newline-delimited events until it ends. */
  start(request: WatchRequest, response: ServerResponse): void {
    const stream = new WatchStream(request, response, this.currentResourceVersion, () =>
      this.streams.delete(stream),
    );
    this.streams.add(stream);
    stream.begin(this.bookmarkIntervalMs);
  }

  /** Open streams get an ERROR event (410 Expired) and end. */
  expireAll(): void {
    for (const stream of [...this.streams]) stream.fail(expired('too old resource version'));
  }

  closeAll(store?: KindStore): void {
    for (const stream of [...this.streams]) if (!store || stream.store === store) stream.end();
  }
}

class WatchStream {
  private unsubscribe?: () => void;
  private timers: NodeJS.Timeout[] = [];
  private ended = false;
  private corked = false;

  constructor(
    private readonly request: WatchRequest,
    private readonly response: ServerResponse,
    private readonly currentResourceVersion: () => number,
    private readonly onEnd: () => void,
  ) {
    response.on('close', () => this.end());
  }

  get store(): KindStore {
    return this.request.store;
  }

  begin(bookmarkIntervalMs: number): void {
    this.response.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    this.response.flushHeaders();
    let initial: Array<{ type: WatchEventType; entry: StoredEntry }>;
    try {
      initial = this.initialEvents();
    } catch (error) {
      this.fail(error as KubeStatusError);
      return;
    }
    // Subscribing and replaying happen in one turn: no event can fall between them.
    this.unsubscribe = this.store.subscribe((event) => this.deliver(event));
    for (const { type, entry } of initial) this.write(type, entry.json);
    if (this.request.sendInitialEvents) {
      this.bookmark({ 'k8s.io/initial-events-end': 'true' });
    }
    if (this.request.bookmarks) {
      this.timers.push(setInterval(() => this.bookmark(), bookmarkIntervalMs));
    }
    if (this.request.timeoutSeconds !== undefined) {
      this.timers.push(setTimeout(() => this.end(), this.request.timeoutSeconds * 1000));
    }
  }

  /** Every event of the kind up to the current resourceVersion has been sent by now. */
  private bookmark(annotations?: Record<string, string>): void {
    const metadata = {
      resourceVersion: String(this.currentResourceVersion()),
      ...(annotations ? { annotations } : {}),
    };
    const object = {
      kind: this.store.registration.kind,
      apiVersion: this.store.apiVersion,
      metadata,
    };
    this.write('BOOKMARK', JSON.stringify(object));
  }

  private initialEvents(): Array<{ type: WatchEventType; entry: StoredEntry }> {
    const { resourceVersion } = this.request;
    const fromNow =
      resourceVersion === undefined || resourceVersion === '' || resourceVersion === '0';
    if (fromNow || this.request.sendInitialEvents) {
      return this.store
        .entries(this.request.namespace)
        .filter((entry) => this.selects(entry, entry.labels))
        .map((entry) => ({ type: 'ADDED', entry }));
    }
    if (!/^\d+$/.test(resourceVersion))
      throw badRequest(`invalid resource version: ${resourceVersion}`);
    return this.store
      .eventsSince(Number(resourceVersion))
      .map((event) => ({ type: this.typeFor(event), entry: event.entry }))
      .filter(
        (event): event is { type: WatchEventType; entry: StoredEntry } => event.type !== undefined,
      );
  }

  private deliver(event: StoredEvent): void {
    const type = this.typeFor(event);
    if (type) this.write(type, event.entry.json);
  }

  /** The event as this watch sees it: objects entering or leaving its label selector appear added or deleted. */
  private typeFor(event: StoredEvent): WatchEventType | undefined {
    const { entry } = event;
    if (this.request.namespace !== undefined && entry.namespace !== this.request.namespace)
      return undefined;
    if (this.request.fields && !this.request.fields.matches(entry.namespace, entry.name))
      return undefined;
    const labels = this.request.labels;
    if (!labels || event.type === 'ADDED')
      return this.selects(entry, entry.labels) ? event.type : undefined;
    const before = labels.matches(event.type === 'DELETED' ? entry.labels : event.previousLabels);
    const after = event.type !== 'DELETED' && labels.matches(entry.labels);
    if (event.type === 'DELETED') return before ? 'DELETED' : undefined;
    if (before && after) return 'MODIFIED';
    if (after) return 'ADDED';
    return before ? 'DELETED' : undefined;
  }

  private selects(entry: StoredEntry, labels: StoredEntry['labels']): boolean {
    return (
      (!this.request.fields || this.request.fields.matches(entry.namespace, entry.name)) &&
      (!this.request.labels || this.request.labels.matches(labels))
    );
  }

  private write(type: WatchEventType | 'BOOKMARK' | 'ERROR', objectJson: string): void {
    if (this.ended) return;
    // Events of one turn (a bulk change, a replay) leave in one write.
    if (!this.corked) {
      this.corked = true;
      this.response.cork();
      process.nextTick(() => {
        this.corked = false;
        this.response.uncork();
      });
    }
    this.response.write(`{"type":"${type}","object":${objectJson}}\n`);
  }

  fail(error: KubeStatusError): void {
    this.write('ERROR', JSON.stringify(error.toStatus()));
    this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.unsubscribe?.();
    this.timers.forEach((timer) => clearTimeout(timer));
    this.response.end();
    this.onEnd();
  }
}
