import { afterEach, describe, expect, it } from '@jest/globals';
import {
  CoreKinds,
  Informer,
  type InformerEvent,
  type KindRef,
  KubeClient,
  type KubeObject,
} from '@platform/kube';
import { FakeKubeApiServer, eventually } from '@platform/testing';
import { quietLogger, widget, WidgetKind } from './operator-test-app.js';

const ConfigMapKind: KindRef = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};

describe('Informer against the API server', () => {
  let server: FakeKubeApiServer;
  let informer: Informer | undefined;
  let events: Array<{ type: InformerEvent<KubeObject>['type']; name: string; size?: number }>;

  async function start(options: { bookmarkIntervalMs?: number } = {}): Promise<void> {
    server = await FakeKubeApiServer.start({
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    });
    server.registerKind({ ...WidgetKind, statusSubresource: true });
  }

  function inform(options: { namespace?: string; labelSelector?: string } = {}): Informer {
    const client = KubeClient.fromKubeConfig(server.kubeConfig());
    const created = new Informer(client, WidgetKind, {
      ...options,
      logger: quietLogger,
      retryDelayMs: 20,
    });
    events = [];
    created.onEvent((event) =>
      events.push({
        type: event.type,
        name: event.object.metadata.name!,
        size: (event.object.spec as { size?: number } | undefined)?.size,
      }),
    );
    informer = created;
    created.start();
    return created;
  }

  /** List requests (not watches) of widgets the server received. */
  function widgetLists(): number {
    return server.requests.filter(
      (r) => r.path.endsWith('/widgets') && r.method === 'GET' && r.query.watch !== 'true',
    ).length;
  }

  function widgetWatches() {
    return server.requests.filter((r) => r.kind === 'Widget' && r.query.watch === 'true');
  }

  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
    await server?.stop();
  });

  it('lists, then turns creations, changes and deletions into events', async () => {
    await start();
    server.put(WidgetKind, widget('first'));
    const watching = inform();
    await watching.whenSynced();
    expect(events).toEqual([{ type: 'added', name: 'first', size: 1 }]);
    server.put(WidgetKind, widget('second'));
    server.put(WidgetKind, widget('first', 'team-a', { size: 2 }));
    server.remove(WidgetKind, 'team-a', 'second');
    await eventually(() => events.length === 4);
    expect(events.slice(1)).toEqual([
      { type: 'added', name: 'second', size: 1 },
      { type: 'updated', name: 'first', size: 2 },
      { type: 'deleted', name: 'second', size: 1 },
    ]);
    expect(watching.store.list().map((w) => w.metadata.name)).toEqual(['first']);
    expect(watching.store.get('team-a', 'first')?.spec).toEqual({ size: 2 });
    expect(widgetWatches()[0]!.query).toMatchObject({
      allowWatchBookmarks: 'true',
      resourceVersion: expect.any(String),
    });
  });

  it('relists after 410 Gone without losing what changed while the watch was broken', async () => {
    await start();
    server.put(WidgetKind, widget('kept'));
    server.put(WidgetKind, widget('changed'));
    server.put(WidgetKind, widget('deleted'));
    const watching = inform();
    await watching.whenSynced();
    await eventually(() => server.openWatches === 1);
    events.length = 0;

    // Everything below happens after the open watch got its 410 and before the client relists.
    server.expireWatches();
    server.put(WidgetKind, widget('created'));
    server.put(WidgetKind, widget('changed', 'team-a', { size: 5 }));
    server.remove(WidgetKind, 'team-a', 'deleted');

    await eventually(() => events.length === 3, {
      timeoutMs: 5000,
      what: 'the three missed events',
    });
    expect(events).toEqual(
      expect.arrayContaining([
        { type: 'added', name: 'created', size: 1 },
        { type: 'updated', name: 'changed', size: 5 },
        { type: 'deleted', name: 'deleted', size: 1 },
      ]),
    );
    expect(widgetLists()).toBe(2);
    expect(
      watching.store
        .list()
        .map((w) => w.metadata.name)
        .sort(),
    ).toEqual(['changed', 'created', 'kept']);
    // And it watches again from the new list.
    server.put(WidgetKind, widget('after'));
    await eventually(() => events.some((e) => e.name === 'after'));
  });

  it('resumes a cleanly closed watch from its last resourceVersion without relisting', async () => {
    await start();
    const watching = inform();
    await watching.whenSynced();
    server.put(WidgetKind, widget('before-close'));
    await eventually(() => events.length === 1);
    await eventually(() => server.openWatches === 1);
    const lastSeen = watching.lastResourceVersion;
    expect(lastSeen).toBe(
      server.get<KubeObject>(WidgetKind, 'team-a', 'before-close')!.metadata.resourceVersion,
    );

    server.closeWatches();
    server.put(WidgetKind, widget('after-close'));

    await eventually(() => events.length === 2);
    expect(events[1]).toEqual({ type: 'added', name: 'after-close', size: 1 });
    const watches = widgetWatches();
    expect(watches).toHaveLength(2);
    expect(watches[1]!.query.resourceVersion).toBe(lastSeen);
    expect(widgetLists()).toBe(1);
  });

  it('takes the resourceVersion of bookmarks and resumes from it', async () => {
    await start({ bookmarkIntervalMs: 30 });
    const watching = inform();
    await watching.whenSynced();
    const listed = watching.lastResourceVersion;
    // Writes to another kind move the server's resourceVersion; only a bookmark tells the widget watch.
    server.put(ConfigMapKind, {
      metadata: { name: 'other', namespace: 'team-a' },
      data: { a: '1' },
    });
    const current = server.resourceVersion;
    expect(Number(current)).toBeGreaterThan(Number(listed));
    await eventually(() => watching.lastResourceVersion === current, {
      timeoutMs: 5000,
      what: 'a bookmark',
    });

    server.closeWatches();
    await eventually(() => widgetWatches().length === 2);
    expect(widgetWatches()[1]!.query.resourceVersion).toBe(current);
    expect(widgetLists()).toBe(1);
    expect(events).toEqual([]);
  });

  it('watches one namespace with a label selector, and drops objects that leave the selection', async () => {
    await start();
    server.put(WidgetKind, {
      ...widget('mine'),
      metadata: { name: 'mine', namespace: 'team-a', labels: { app: 'restic' } },
    });
    server.put(WidgetKind, {
      ...widget('unlabelled'),
      metadata: { name: 'unlabelled', namespace: 'team-a' },
    });
    server.put(WidgetKind, {
      ...widget('elsewhere', 'team-b'),
      metadata: { name: 'elsewhere', namespace: 'team-b', labels: { app: 'restic' } },
    });
    const watching = inform({ namespace: 'team-a', labelSelector: 'app=restic' });
    await watching.whenSynced();
    expect(watching.store.list().map((w) => w.metadata.name)).toEqual(['mine']);
    const [list] = server.requests.filter((r) => r.kind === 'Widget');
    expect(list).toMatchObject({ namespace: 'team-a', query: { labelSelector: 'app=restic' } });
    await eventually(() => widgetWatches().length === 1);
    expect(widgetWatches()[0]).toMatchObject({
      namespace: 'team-a',
      query: { labelSelector: 'app=restic' },
    });

    server.put(WidgetKind, {
      ...widget('mine'),
      metadata: { name: 'mine', namespace: 'team-a', labels: { app: 'other' } },
    });
    await eventually(() => events.some((e) => e.type === 'deleted'));
    expect(watching.store.list()).toEqual([]);
  });

  it('keeps retrying a kind the server does not serve yet, and syncs once it does', async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 60_000 });
    const watching = inform();
    await eventually(() => widgetLists() >= 2, { timeoutMs: 5000, what: 'a second list attempt' });
    expect(watching.hasSynced).toBe(false);
    server.registerKind({ ...WidgetKind, statusSubresource: true });
    server.put(WidgetKind, widget('late'));
    await watching.whenSynced();
    expect(watching.store.get('team-a', 'late')).toBeDefined();
  });

  it('serves core kinds whose list items come without apiVersion and kind', async () => {
    await start();
    const client = KubeClient.fromKubeConfig(server.kubeConfig());
    server.put(CoreKinds.Secret, { metadata: { name: 's', namespace: 'team-a' }, data: {} });
    const { items } = await client.list(CoreKinds.Secret, 'team-a');
    expect(items.map((s) => [s.apiVersion, s.kind, s.metadata.name])).toEqual([
      ['v1', 'Secret', 's'],
    ]);
  });
});
