import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { type ClusterAccess, ClientNodeAccess, KubeconfigAccess } from './cluster-access.js';
import { apiVersionOf, type KindRef, type KubeObject, resourcePath } from './kinds.js';
import { KubeApiError } from './kube-api-error.js';
import { readBody, type RequestOptions, sendRequest } from './kube-http.js';
import { inClusterKubeconfig, type ResolvedKubeconfig, resolveKubeconfig } from './kubeconfig.js';

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
  /** How long a token read from a file (a service account's) is used before reading it again. */
  tokenRefreshMs?: number;
}

const MERGE_PATCH = 'application/merge-patch+json';

/**
 * The Kubernetes REST API over node:http(s). The ClusterAccess supplies the server, the
 * connection pool (TLS settings) and the credentials of every request, watches included, so
 * tokens that rotate (service account token files, exec plugins) are picked up per request.
 */
export class KubeClient {
  private readonly server: string;
  private readonly requestTimeoutMs: number;
  private readonly listPageSize: number;

  constructor(
    private readonly access: ClusterAccess,
    options: KubeClientOptions = {},
  ) {
    this.server = access.server.replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.listPageSize = options.listPageSize ?? 500;
  }

  /** Through a @kubernetes/client-node KubeConfig (every authentication method it knows). */
  static fromKubeConfig(kubeConfig: KubeConfig, options?: KubeClientOptions): KubeClient {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig names no current cluster');
    const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
    const access = new ClientNodeAccess(
      cluster.server,
      context?.namespace?.trim() || undefined,
      () => kubeConfig,
      Boolean(cluster.proxyUrl),
    );
    return new KubeClient(access, options);
  }

  /** From kubeconfig text, e.g. read from a Secret. */
  static fromKubeconfigYaml(yaml: string, options?: KubeClientOptions): KubeClient {
    return KubeClient.fromResolved(resolveKubeconfig(yaml), yaml, undefined, options);
  }

  /** The kubeconfig file named by KUBECONFIG when set, else the pod's service account. */
  static fromEnvironment(
    kubeconfigPath = process.env.KUBECONFIG,
    options?: KubeClientOptions,
  ): KubeClient {
    if (!kubeconfigPath) {
      return new KubeClient(
        new KubeconfigAccess(inClusterKubeconfig(), options?.tokenRefreshMs),
        options,
      );
    }
    const yaml = readFileSync(kubeconfigPath, 'utf8');
    const directory = dirname(kubeconfigPath);
    return KubeClient.fromResolved(resolveKubeconfig(yaml, directory), yaml, directory, options);
  }

  private static fromResolved(
    config: ResolvedKubeconfig,
    yaml: string,
    directory: string | undefined,
    options: KubeClientOptions | undefined,
  ): KubeClient {
    if (!config.delegated) {
      return new KubeClient(new KubeconfigAccess(config, options?.tokenRefreshMs), options);
    }
    const load = async () => {
      const { KubeConfig } = await import('@kubernetes/client-node');
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(yaml);
      if (directory) kubeConfig.makePathsAbsolute(directory);
      return kubeConfig;
    };
    const proxied = config.delegated === 'proxy-url';
    return new KubeClient(
      new ClientNodeAccess(config.server, config.namespace, load, proxied),
      options,
    );
  }

  /** The namespace of the kubeconfig's current context (the pod's own namespace in-cluster). */
  currentNamespace(): string | undefined {
    return this.access.namespace;
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

  /**
   * Deletes an object; one that is already gone is not an error. With preconditions, an object
   * that changed since it was read is refused with 409 Conflict.
   */
  async delete(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    options: {
      propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
      preconditions?: { uid?: string; resourceVersion?: string };
    } = {},
  ): Promise<void> {
    const body = options.preconditions
      ? { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: options.preconditions }
      : undefined;
    try {
      await this.json('DELETE', resourcePath(kind, namespace, name), {
        query: { propagationPolicy: options.propagationPolicy },
        body,
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
    return this.text('GET', path, {
      query: {
        container: options.container,
        tailLines: options.tailLines === undefined ? undefined : String(options.tailLines),
      },
      accept: 'text/plain, */*',
    });
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
      const response = await sendRequest(this.access, this.server, 'GET', path, {
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
      if (response.statusCode === 410) {
        response.resume();
        return { reason: 'expired' };
      }
      if (response.statusCode !== 200) {
        const text = await readBody(response);
        const error = KubeApiError.fromResponse(response.statusCode ?? 0, 'GET', path, text);
        return { reason: 'failed', error };
      }
      response.setEncoding('utf8');
      let buffer = '';
      for await (const chunk of response as AsyncIterable<string>) {
        touch();
        buffer += chunk;
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

  private async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const text = await this.text(method, path, options);
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  /** One request within the time limit: the body as text, or KubeApiError for 4xx and 5xx. */
  private async text(method: string, path: string, options: RequestOptions): Promise<string> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.requestTimeoutMs);
    try {
      const response = await sendRequest(this.access, this.server, method, path, {
        ...options,
        signal: deadline.signal,
      });
      const text = await readBody(response);
      const status = response.statusCode ?? 0;
      if (status >= 400) throw KubeApiError.fromResponse(status, method, path, text);
      return text;
    } catch (error) {
      if (!deadline.signal.aborted) throw error;
      throw new Error(`${method} ${path}: no answer within ${this.requestTimeoutMs} ms`);
    } finally {
      clearTimeout(timer);
    }
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
