import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { KubernetesObjectApi, type KubernetesObject, makeInformer } from '@kubernetes/client-node';
import { FakeKubeApiServer, eventually } from '@platform/testing';
import { CollectedWatch, WIDGETS, type Widget, widget } from './support.js';

const COLLECTION = '/apis/example.neutral.com/v1/namespaces/team-a/widgets';

describe('FakeKubeApiServer watches', () => {
  let server: FakeKubeApiServer;
  let objects: KubernetesObjectApi;
  const watches: CollectedWatch[] = [];

  const open = async (path: string, query: Record<string, string | number | boolean> = {}) => {
    const watch = await CollectedWatch.open(server.kubeConfig(), path, query);
    watches.push(watch);
    return watch;
  };

  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 100 });
    server.registerKind({ ...WIDGETS, statusSubresource: true });
    objects = KubernetesObjectApi.makeApiClient(server.kubeConfig());
  });

  afterEach(() => watches.splice(0).forEach((watch) => watch.stop()));
  afterAll(() => server.stop());

  it('starts without a resourceVersion with ADDED events for the current objects, then streams changes', async () => {
    server.put(WIDGETS, widget('w-existing'));
    server.put(WIDGETS, {
      ...widget('w-elsewhere'),
      metadata: { name: 'w-elsewhere', namespace: 'team-b' },
    });
    const watch = await open(COLLECTION);
    await watch.waitFor(1, 'ADDED');
    const created = (await objects.create(widget('w-new'))) as Widget;
    await objects.delete(created);
    const events = await watch.waitFor(3);
    expect(events.map((event) => [event.type, event.object.metadata.name])).toEqual([
      ['ADDED', 'w-existing'],
      ['ADDED', 'w-new'],
      ['DELETED', 'w-new'],
    ]);
    expect(Number(events[2].object.metadata.resourceVersion)).toBeGreaterThan(
      Number(events[1].object.metadata.resourceVersion),
    );
  });

  it('resumes from a resourceVersion with exactly the events after it, in order', async () => {
    const first = server.put(WIDGETS, widget('w-resume', { size: 1 })) as Widget;
    server.put(WIDGETS, { ...first, spec: { size: 2 } });
    server.put(WIDGETS, { ...first, spec: { size: 3 } });
    const watch = await open(COLLECTION, { resourceVersion: first.metadata.resourceVersion! });
    const events = await watch.waitFor(2);
    expect(events.map((event) => [event.type, event.object.spec?.size])).toEqual([
      ['MODIFIED', 2],
      ['MODIFIED', 3],
    ]);
    expect(events.map((event) => event.object.metadata.generation)).toEqual([2, 3]);
  });

  it('filters by label selector, showing objects that enter or leave it as ADDED and DELETED', async () => {
    const watch = await open(COLLECTION, {
      labelSelector: 'app=web',
      resourceVersion: server.resourceVersion,
    });
    const plain = server.put(WIDGETS, widget('w-label', { size: 1 }, { app: 'db' })) as Widget;
    server.put(WIDGETS, { ...plain, metadata: { ...plain.metadata, labels: { app: 'web' } } });
    server.put(WIDGETS, {
      ...plain,
      spec: { size: 2 },
      metadata: { ...plain.metadata, labels: { app: 'web' } },
    });
    server.put(WIDGETS, { ...plain, metadata: { ...plain.metadata, labels: { app: 'db' } } });
    const events = await watch.waitFor(3);
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('filters by metadata.name with a field selector', async () => {
    const watch = await open(COLLECTION, {
      fieldSelector: 'metadata.name=w-field-b',
      resourceVersion: server.resourceVersion,
    });
    server.put(WIDGETS, widget('w-field-a'));
    server.put(WIDGETS, widget('w-field-b'));
    const events = await watch.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(watch.events.map((event) => event.object.metadata.name)).toEqual(['w-field-b']);
    expect(events).toHaveLength(1);
  });

  it('watches one object through its own path', async () => {
    const watch = await open(`${COLLECTION}/w-single`, { resourceVersion: server.resourceVersion });
    server.put(WIDGETS, widget('w-not-single'));
    server.put(WIDGETS, widget('w-single'));
    await watch.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(watch.events.map((event) => event.object.metadata.name)).toEqual(['w-single']);
  });

  it('sends the current objects, then a bookmark marking their end, for sendInitialEvents', async () => {
    server.put(WIDGETS, {
      ...widget('w-initial'),
      metadata: { name: 'w-initial', namespace: 'initial' },
    });
    const watch = await open('/apis/example.neutral.com/v1/namespaces/initial/widgets', {
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      resourceVersionMatch: 'NotOlderThan',
    });
    const [added, bookmark] = await watch.waitFor(2);
    expect(added.type).toBe('ADDED');
    expect(bookmark.type).toBe('BOOKMARK');
    expect(bookmark.object.metadata).toEqual({
      resourceVersion: server.resourceVersion,
      annotations: { 'k8s.io/initial-events-end': 'true' },
    });
  });

  it('sends bookmarks carrying only the current resourceVersion when allowed', async () => {
    const watch = await open(COLLECTION, {
      allowWatchBookmarks: true,
      resourceVersion: server.resourceVersion,
    });
    server.put(WIDGETS, widget('w-bookmark'));
    const [bookmark] = await watch.waitFor(1, 'BOOKMARK');
    expect(bookmark.object).toEqual({
      kind: 'Widget',
      apiVersion: 'example.neutral.com/v1',
      metadata: { resourceVersion: server.resourceVersion },
    });
    const silent = await open(COLLECTION, { resourceVersion: server.resourceVersion });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(silent.events).toEqual([]);
  });

  it('refuses a malformed resourceVersion or selector before streaming', async () => {
    const badVersion = await fetch(`${server.url}${COLLECTION}?watch=true&resourceVersion=abc`);
    expect(badVersion.status).toBe(400);
    expect(await badVersion.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    const badSelector = await fetch(
      `${server.url}${COLLECTION}?watch=true&labelSelector=a%20in%20b`,
    );
    expect(badSelector.status).toBe(400);
  });

  it('ends the stream after timeoutSeconds', async () => {
    const watch = await open(COLLECTION, {
      timeoutSeconds: 0.2,
      resourceVersion: server.resourceVersion,
    });
    expect(await watch.ended).toBe('ended');
  });

  it('expires open watches and older resourceVersions with 410 Expired', async () => {
    const before = server.resourceVersion;
    server.put(WIDGETS, widget('w-expire'));
    const watch = await open(COLLECTION, { resourceVersion: before });
    await watch.waitFor(1, 'ADDED');
    server.expireWatches();
    const [error] = await watch.waitFor(1, 'ERROR');
    expect(error.object).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
    });
    expect(await watch.ended).toBe('ended');
    const late = await open(COLLECTION, { resourceVersion: before });
    const [lateError] = await late.waitFor(1, 'ERROR');
    expect(lateError.object.code).toBe(410);
    expect(await late.ended).toBe('ended');
    const current = await open(COLLECTION, { resourceVersion: server.resourceVersion });
    server.put(WIDGETS, widget('w-after-expiry'));
    expect((await current.waitFor(1))[0].type).toBe('ADDED');
  });

  it('answers 410 for a resourceVersion older than the kept history', async () => {
    const small = await FakeKubeApiServer.start({ historyLimit: 4 });
    try {
      small.registerKind(WIDGETS);
      const first = small.put(WIDGETS, widget('w-history', { size: 0 })) as Widget;
      for (let size = 1; size <= 6; size++) small.put(WIDGETS, { ...first, spec: { size } });
      const watch = await CollectedWatch.open(small.kubeConfig(), COLLECTION, {
        resourceVersion: first.metadata.resourceVersion!,
      });
      const [error] = await watch.waitFor(1, 'ERROR');
      expect(error.object).toMatchObject({ code: 410, reason: 'Expired' });
      const recent = await CollectedWatch.open(small.kubeConfig(), COLLECTION, {
        resourceVersion: String(Number(small.resourceVersion) - 2),
      });
      expect((await recent.waitFor(2)).map((event) => event.object.spec?.size)).toEqual([5, 6]);
      recent.stop();
    } finally {
      await small.stop();
    }
  });

  it('lets an informer relist after 410 and resume after a clean close without losing events', async () => {
    const config = server.kubeConfig();
    const informer = makeInformer<KubernetesObject>(config, COLLECTION, async () => {
      const list = await objects.list('example.neutral.com/v1', 'Widget', 'team-a');
      return list as never;
    });
    const names = () =>
      informer
        .list('team-a')
        .map((object) => object.metadata!.name)
        .sort();
    await informer.start();
    try {
      server.put(WIDGETS, widget('w-informer-1'));
      await eventually(() => names().includes('w-informer-1'));
      server.closeWatches();
      server.put(WIDGETS, widget('w-informer-2'));
      await eventually(() => names().includes('w-informer-2'));
      server.expireWatches();
      server.put(WIDGETS, widget('w-informer-3'));
      server.remove(WIDGETS, 'team-a', 'w-informer-1');
      await eventually(
        () => names().includes('w-informer-3') && !names().includes('w-informer-1'),
        { timeoutMs: 8000 },
      );
      expect(names()).toEqual(
        server
          .list<Widget>(WIDGETS, 'team-a')
          .map((w) => w.metadata.name)
          .sort(),
      );
    } finally {
      await informer.stop();
    }
  });
});
