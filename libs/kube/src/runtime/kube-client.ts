import {
  type HttpMethod,
  IsomorphicFetchHttpLibrary,
  KubeConfig,
  RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { apiVersionOf, type KindRef, type KubeObject, resourcePath } from './kinds.js';
import { KubeApiError } from './kube-api-error.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}

/**
 * How a watch stream ended: `closed` (the server or the idle timer ended it; resume from the
 * last resourceVersion), `expired` (410 Gone: relist), `failed` (anything else), `stopped`.
 */
export type WatchEnd =
  | { reason: 'closed' }
  | { reason: 'expired' }
  | { reason: 'failed'; error: Error }
  | { reason: 'stopped' };

export interface WatchHandle {
  readonly done: Promise<WatchEnd>;
  stop(): void;
}

export interface WatchOptions {
  resourceVersion: string;
  labelSelector?: string;
  /** Asks the server to end the stream after this long (it is then resumed). */
  timeoutSeconds?: number;
  /** Ends a stream that sent nothing (not even a bookmark) for this long. */
  idleTimeoutMs?: number;
}

export interface KubeClientOptions {
  /** Per-request time limit of everything but watches. */
  requestTimeoutMs?: number;
  /** Page size of lists (`limit`/`continue`); 0 lists in one response. */
  listPageSize?: number;
}

type Query = Record<string, string | undefined>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

const MERGE_PATCH = 'application/merge-patch+json';

/**
 * The Kubernetes REST API over client-node's own HTTP layer: the KubeConfig supplies the
 * server, credentials and TLS settings of every request (including watches), so tokens that
 * rotate (in-cluster, exec plugins) are picked up per request.
 */
export class KubeClient {
  private readonly http = new IsomorphicFetchHttpLibrary();
  private readonly server: string;
  private readonly requestTimeoutMs: number;
  private readonly listPageSize: number;
  private dispatcher: ReturnType<RequestContext['getDispatcher']>;

  constructor(
    readonly kubeConfig: KubeConfig,
    options: KubeClientOptions = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('The kubeconfig names no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.listPageSize = options.listPageSize ?? 500;
  }

  static fromKubeConfig(kubeConfig: KubeConfig, options?: KubeClientOptions): KubeClient {
    return new KubeClient(kubeConfig, options);
  }

  /** From kubeconfig text, e.g. read from a Secret. */
  static fromKubeconfigYaml(yaml: string, options?: KubeClientOptions): KubeClient {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(yaml);
    return new KubeClient(kubeConfig, options);
  }

  /** The kubeconfig file named by KUBECONFIG when set, else the pod's service account. */
  static fromEnvironment(kubeconfigPath = process.env.KUBECONFIG): KubeClient {
    const kubeConfig = new KubeConfig();
    if (kubeconfigPath) kubeConfig.loadFromFile(kubeconfigPath);
    else kubeConfig.loadFromCluster();
    return new KubeClient(kubeConfig);
  }

  /** The namespace of the kubeconfig's current context (the pod's own namespace in-cluster). */
  currentNamespace(): string | undefined {
    const context = this.kubeConfig.getContextObject(this.kubeConfig.getCurrentContext());
    return context?.namespace?.trim() || undefined;
  }

  async get<T extends KubeObject>(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
  ): Promise<T | undefined> {
    try {
      return withTypeMeta(kind, await this.json<T>('GET', resourcePath(kind, namespace, name)));
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  async list<T extends KubeObject>(
    kind: KindRef,
    namespace?: string,
    options: { labelSelector?: string } = {},
  ): Promise<{ items: T[]; resourceVersion: string }> {
    const items: T[] = [];
    let resourceVersion = '';
    let next: string | undefined;
    do {
      const page = await this.json<{
        items?: T[];
        metadata?: { resourceVersion?: string; continue?: string };
      }>('GET', resourcePath(kind, namespace), {
        query: {
          labelSelector: options.labelSelector || undefined,
          limit: this.listPageSize > 0 ? String(this.listPageSize) : undefined,
          continue: next,
        },
      });
      for (const item of page.items ?? []) items.push(withTypeMeta(kind, item));
      resourceVersion ||= page.metadata?.resourceVersion ?? '';
      next = page.metadata?.continue || undefined;
    } while (next);
    return { items, resourceVersion };
  }

  async create<T extends KubeObject>(kind: KindRef, object: T): Promise<T> {
    const body = { ...object, apiVersion: apiVersionOf(kind), kind: kind.kind };
    const path = resourcePath(kind, object.metadata.namespace);
    return withTypeMeta(kind, await this.json<T>('POST', path, { body }));
  }

  async replace<T extends KubeObject>(kind: KindRef, object: T): Promise<T> {
    const body = { ...object, apiVersion: apiVersionOf(kind), kind: kind.kind };
    const path = resourcePath(kind, object.metadata.namespace, object.metadata.name ?? '');
    return withTypeMeta(kind, await this.json<T>('PUT', path, { body }));
  }

  async mergePatch<T extends KubeObject>(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    patch: object,
  ): Promise<T> {
    const path = resourcePath(kind, namespace, name);
    return withTypeMeta(
      kind,
      await this.json<T>('PATCH', path, { body: patch, contentType: MERGE_PATCH }),
    );
  }

  /** Merge-patches `.status` through the status subresource. */
  async mergePatchStatus<T extends KubeObject>(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    status: object,
  ): Promise<T> {
    const path = resourcePath(kind, namespace, name, 'status');
    return withTypeMeta(
      kind,
      await this.json<T>('PATCH', path, { body: { status }, contentType: MERGE_PATCH }),
    );
  }

  /** Deletes an object; one that is already gone is not an error. */
  async delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    options: { propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' } = {},
  ): Promise<void> {
    try {
      await this.json('DELETE', resourcePath(kind, namespace, name), {
        query: { propagationPolicy: options.propagationPolicy },
      });
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return;
      throw error;
    }
  }

  async podLog(
    namespace: string,
    pod: string,
    options: { container?: string; tailLines?: number } = {},
  ): Promise<string> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;
    const response = await this.send('GET', path, {
      query: {
        container: options.container,
        tailLines: options.tailLines === undefined ? undefined : String(options.tailLines),
      },
      accept: 'text/plain, */*',
      signal: AbortSignal.timeout(this.requestTimeoutMs),
    });
    const text = await response.body.text();
    if (response.httpStatusCode >= 400) {
      throw KubeApiError.fromResponse(response.httpStatusCode, 'GET', path, text);
    }
    return text;
  }

  /**
   * Streams watch events of a kind from `resourceVersion` on. ERROR events end the stream:
   * code 410 as `expired`, others as `failed`; so does an HTTP error status.
   */
  watch<T extends KubeObject>(
    kind: KindRef,
    namespace: string | undefined,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
  ): WatchHandle {
    const abort = new AbortController();
    let stopped = false;
    let idle = false;
    let idleTimer: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idleTimer);
      if (!options.idleTimeoutMs) return;
      idleTimer = setTimeout(() => {
        idle = true;
        abort.abort();
      }, options.idleTimeoutMs);
      idleTimer.unref();
    };
    const path = resourcePath(kind, namespace);
    const run = async (): Promise<WatchEnd> => {
      touch();
      const response = await this.send('GET', path, {
        query: {
          watch: 'true',
          resourceVersion: options.resourceVersion || undefined,
          allowWatchBookmarks: 'true',
          labelSelector: options.labelSelector || undefined,
          timeoutSeconds:
            options.timeoutSeconds === undefined ? undefined : String(options.timeoutSeconds),
        },
        signal: abort.signal,
      });
      if (response.httpStatusCode === 410) return { reason: 'expired' };
      if (response.httpStatusCode !== 200) {
        const text = await response.body.text();
        const error = KubeApiError.fromResponse(response.httpStatusCode, 'GET', path, text);
        return { reason: 'failed', error };
      }
      const stream = response.body.stream();
      if (!stream) return { reason: 'closed' };
      const reader = stream.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        touch();
        buffer += decoder.decode(chunk.value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line === '') continue;
          const event = JSON.parse(line) as {
            type: WatchEventType | 'ERROR';
            object: T & { code?: number; message?: string; reason?: string };
          };
          if (event.type === 'ERROR') {
            abort.abort();
            const status = event.object;
            if (status.code === 410) return { reason: 'expired' };
            const error = new KubeApiError(
              status.code ?? 500,
              `watch ${path}: ${status.message ?? 'error event'}`,
              status.reason,
            );
            return { reason: 'failed', error };
          }
          onEvent({ type: event.type, object: withTypeMeta(kind, event.object) });
        }
      }
      return { reason: 'closed' };
    };
    const done = run()
      .catch((error: unknown): WatchEnd => {
        if (stopped) return { reason: 'stopped' };
        if (idle) return { reason: 'closed' };
        return {
          reason: 'failed',
          error: error instanceof Error ? error : new Error(String(error)),
        };
      })
      .then((end): WatchEnd => (stopped ? { reason: 'stopped' } : end))
      .finally(() => {
        clearTimeout(idleTimer);
        abort.abort();
      });
    return {
      done,
      stop: () => {
        stopped = true;
        abort.abort();
      },
    };
  }

  private async json<T>(
    method: HttpMethod,
    path: string,
    options: RequestOptions = {},
  ): Promise<T> {
    const response = await this.send(method, path, {
      ...options,
      signal: AbortSignal.timeout(this.requestTimeoutMs),
    });
    const text = await response.body.text();
    if (response.httpStatusCode >= 400) {
      throw KubeApiError.fromResponse(response.httpStatusCode, method, path, text);
    }
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  private async send(
    method: HttpMethod,
    path: string,
    options: RequestOptions,
  ): Promise<ResponseContext> {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    const context = new RequestContext(url.toString(), method);
    context.setHeaderParam('Accept', options.accept ?? 'application/json');
    if (options.body !== undefined) {
      context.setHeaderParam('Content-Type', options.contentType ?? 'application/json');
      context.setBody(JSON.stringify(options.body));
    }
    if (options.signal) context.setSignal(options.signal);
    await this.kubeConfig.applySecurityAuthentication(context);
    // The KubeConfig builds a new connection pool per call; keep the first so connections are reused.
    const dispatcher = context.getDispatcher();
    if (dispatcher) {
      this.dispatcher ??= dispatcher;
      context.setDispatcher(this.dispatcher);
    }
    return this.http.send(context).toPromise();
  }
}

/** List items and watch objects of built-in kinds come without apiVersion and kind. */
function withTypeMeta<T extends KubeObject>(kind: KindRef, object: T): T {
  if (object && typeof object === 'object' && (!object.apiVersion || !object.kind)) {
    object.apiVersion ||= apiVersionOf(kind);
    object.kind ||= kind.kind;
  }
  return object;
}
