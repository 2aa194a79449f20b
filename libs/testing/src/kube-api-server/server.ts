import type { KubeConfig } from '@kubernetes/client-node';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { registerBuiltIns, registerCustomResource, type ControllerContext } from './controllers.js';
import type { KindStore } from './kind-store.js';
import { BUILT_IN_KINDS, type KindRef, type KindRegistration, kindKey } from './kinds.js';
import { parseEntry } from './objects.js';
import { PodLogs } from './pod-logs.js';
import { KubeApiRoutes, type KubeApiRequest } from './routes.js';
import { ObjectStore } from './store.js';
import { WatchHub } from './watch.js';

export interface FakeKubeApiServerOptions {
  /** How often watches that allow bookmarks get one (default 1000 ms). */
  bookmarkIntervalMs?: number;
  /** Events kept per kind for watches resuming from a resourceVersion (default 5000). */
  historyLimit?: number;
  /** Source of creation and deletion timestamps (default the system clock). */
  clock?: { now(): Date };
}

const TOKEN = 'fake-kube-api-token';

/**
 * The Kubernetes client, loaded by the first server to start: every test file imports this
 * library, most never start a server, and the client is a large module graph to load.
 */
let clientNode: typeof import('@kubernetes/client-node') | undefined;

/**
 * A real HTTP server on a free local port that speaks the Kubernetes API the way the real API
 * server does, for @kubernetes/client-node and anything else: discovery, CRUD, the status
 * subresource, merge and JSON patches, optimistic concurrency, label and field selectors,
 * watches with resourceVersions, bookmarks and 410 Expired, finalizers, garbage collection
 * through ownerReferences, custom resource definitions (schema defaults, pruning and
 * validation) and pod logs. Tests also read and write objects directly, producing the same
 * watch events and resourceVersions as requests do.
 */
export class FakeKubeApiServer {
  /** Every request received, in arrival order. */
  readonly requests: KubeApiRequest[] = [];
  private readonly objects: ObjectStore;
  private readonly watches: WatchHub;
  private readonly podLogs = new PodLogs();
  private readonly sockets = new Set<Socket>();
  private readonly controllers: ControllerContext;

  private constructor(
    private readonly server: Server,
    options: FakeKubeApiServerOptions,
  ) {
    const clock = options.clock ?? { now: () => new Date() };
    this.objects = new ObjectStore({
      now: () => clock.now(),
      historyLimit: options.historyLimit ?? 5000,
    });
    this.watches = new WatchHub(
      () => this.objects.resourceVersion,
      options.bookmarkIntervalMs ?? 1000,
    );
    this.controllers = {
      objects: this.objects,
      now: () => clock.now(),
      closeWatches: (store) => this.watches.closeAll(store),
    };
    registerBuiltIns(this.controllers, BUILT_IN_KINDS);
  }

  static async start(options: FakeKubeApiServerOptions = {}): Promise<FakeKubeApiServer> {
    clientNode ??= await import('@kubernetes/client-node');
    // Idle keep-alive connections outlive the client's reuse window, so no request races a close.
    const server = createServer({ keepAliveTimeout: 65_000 });
    const fake = new FakeKubeApiServer(server, options);
    const routes = fake.routes();
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      void routes.handle(request, response);
    });
    server.on('connection', (socket: Socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  private routes(): KubeApiRoutes {
    const requests = this.requests;
    const url = () => this.url;
    return new KubeApiRoutes({
      objects: this.objects,
      watches: this.watches,
      podLogs: this.podLogs,
      record: (request) => requests.push(request),
      get serverAddress() {
        return new URL(url()).host;
      },
    });
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** One cluster (plain HTTP, so insecure-skip-tls-verify), a token user, current-context set. */
  kubeconfigYaml(): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '  - name: fake',
      '    cluster:',
      `      server: ${this.url}`,
      '      insecure-skip-tls-verify: true',
      'users:',
      '  - name: fake',
      '    user:',
      `      token: ${TOKEN}`,
      'contexts:',
      '  - name: fake',
      '    context:',
      '      cluster: fake',
      '      user: fake',
      '      namespace: default',
      'current-context: fake',
      '',
    ].join('\n');
  }

  kubeConfig(): KubeConfig {
    const config = new clientNode!.KubeConfig();
    config.loadFromString(this.kubeconfigYaml());
    return config;
  }

  /** Serves a kind (as a CRD would) in addition to the built-in ones. */
  registerKind(kind: KindRef & { statusSubresource?: boolean }): void {
    registerCustomResource(this.controllers, { ...kind } as KindRegistration);
  }

  get<T>(kind: KindRef, namespace: string | undefined, name: string): T | undefined {
    const entry = this.store(kind).get(namespace ?? '', name);
    return entry ? (parseEntry(entry) as T) : undefined;
  }

  list<T>(kind: KindRef, namespace?: string): T[] {
    return this.store(kind)
      .entries(namespace)
      .map((entry) => parseEntry(entry) as T);
  }

  /**
   * Creates or replaces an object as a controller or the kubelet would: status included, no
   * resourceVersion check. Returns the stored object.
   */
  put<T extends object>(kind: KindRef, object: T): T {
    const store = this.store(kind);
    const metadata =
      (object as { metadata?: { namespace?: string; name?: string } }).metadata ?? {};
    const namespace = kind.namespaced ? (metadata.namespace ?? 'default') : '';
    const body = { ...object, metadata: { ...metadata, resourceVersion: undefined } };
    const entry =
      metadata.name !== undefined && store.get(namespace, metadata.name)
        ? this.objects.update(store, namespace, metadata.name, body, 'all', false)
        : this.objects.create(store, kind.namespaced ? namespace : undefined, body, 'all');
    return parseEntry(entry) as T;
  }

  /** Deletes as a DELETE request would: with finalizers it only sets deletionTimestamp. */
  remove(kind: KindRef, namespace: string | undefined, name: string): void {
    const store = this.store(kind);
    if (store.get(namespace ?? '', name)) this.objects.delete(store, namespace ?? '', name);
  }

  setPodLog(namespace: string, pod: string, text: string, container?: string): void {
    this.podLogs.set(namespace, pod, text, container);
  }

  /** How many write requests (POST, PUT, PATCH, DELETE) matched, whatever they answered. */
  mutations(filter: { kind?: string; namespace?: string; name?: string } = {}): number {
    return this.requests.filter(
      (request) =>
        ['POST', 'PUT', 'PATCH', 'DELETE'].includes(request.method) &&
        (filter.kind === undefined || request.kind === filter.kind) &&
        (filter.namespace === undefined || request.namespace === filter.namespace) &&
        (filter.name === undefined || request.name === filter.name),
    ).length;
  }

  /** Forgets the recorded requests (e.g. before measuring a steady state). */
  clearRequests(): void {
    this.requests.length = 0;
  }

  /** The current resourceVersion of the whole server. */
  get resourceVersion(): string {
    return String(this.objects.resourceVersion);
  }

  /** How many watch streams are open. */
  get openWatches(): number {
    return this.watches.open;
  }

  /**
   * Compacts the event history: open watches get an ERROR event (Status 410 Expired) and end;
   * a watch from any resourceVersion before now answers the same.
   */
  expireWatches(): void {
    for (const store of this.objects.allKinds()) store.compact(this.objects.resourceVersion);
    this.watches.expireAll();
  }

  /** Ends open watch streams cleanly; clients resume from their last resourceVersion. */
  closeWatches(): void {
    this.watches.closeAll();
  }

  async stop(): Promise<void> {
    this.watches.closeAll();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  private store(kind: KindRef): KindStore {
    const store = this.objects.kind(kindKey(kind));
    if (!store) throw new Error(`kind ${kind.kind} (${kindKey(kind)}) is not registered`);
    return store;
  }
}
