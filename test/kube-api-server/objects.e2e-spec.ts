import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BatchV1Api,
  CoordinationV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { FakeKubeApiServer } from '@platform/testing';
import { WIDGETS, type Widget, failure, widget } from './support.js';

describe('FakeKubeApiServer objects through @kubernetes/client-node', () => {
  let server: FakeKubeApiServer;
  let objects: KubernetesObjectApi;
  let custom: CustomObjectsApi;

  beforeAll(async () => {
    server = await FakeKubeApiServer.start();
    server.registerKind({ ...WIDGETS, statusSubresource: true });
    objects = KubernetesObjectApi.makeApiClient(server.kubeConfig());
    custom = server.kubeConfig().makeApiClient(CustomObjectsApi);
  });

  afterAll(() => server.stop());

  it('creates with server-managed metadata and reads the object back', async () => {
    const created = (await objects.create(widget('alpha'))) as Widget;
    expect(created.metadata).toMatchObject({ name: 'alpha', namespace: 'team-a', generation: 1 });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(created.metadata.creationTimestamp).toBeInstanceOf(Date);
    const read = (await objects.read({
      apiVersion: 'example.neutral.com/v1',
      kind: 'Widget',
      metadata: { name: 'alpha', namespace: 'team-a' },
    })) as Widget;
    expect(read).toEqual(created);
    expect(server.get<Widget>(WIDGETS, 'team-a', 'alpha')?.spec).toEqual({ size: 1 });
  });

  it('answers 409 AlreadyExists and 404 NotFound as Status objects', async () => {
    await objects.create(widget('dup'));
    const exists = await failure(objects.create(widget('dup')));
    expect(exists).toEqual({
      code: 409,
      body: expect.objectContaining({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'AlreadyExists',
        code: 409,
        message: 'widgets.example.neutral.com "dup" already exists',
      }),
    });
    const missing = await failure(
      objects.read({
        apiVersion: 'example.neutral.com/v1',
        kind: 'Widget',
        metadata: { name: 'nope', namespace: 'team-a' },
      }),
    );
    expect(missing.code).toBe(404);
    expect(missing.body).toMatchObject({
      reason: 'NotFound',
      message: 'widgets.example.neutral.com "nope" not found',
    });
  });

  it('names objects from generateName', async () => {
    const created = (await objects.create({
      apiVersion: 'example.neutral.com/v1',
      kind: 'Widget',
      metadata: { generateName: 'gen-', namespace: 'team-a' },
    })) as Widget;
    expect(created.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('ignores status on the main endpoint and changes only status through /status', async () => {
    const created = (await objects.create({
      ...widget('stat'),
      status: { phase: 'Ignored' },
    })) as Widget;
    expect(created.status).toBeUndefined();
    const updated = (await custom.patchNamespacedCustomObjectStatus(
      {
        ...WIDGETS,
        namespace: 'team-a',
        name: 'stat',
        body: { status: { phase: 'Ready' }, spec: { size: 99 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Widget;
    expect(updated.status).toEqual({ phase: 'Ready' });
    expect(updated.spec).toEqual({ size: 1 });
    expect(updated.metadata.generation).toBe(1);
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );
    const replaced = (await objects.replace({
      ...updated,
      status: { phase: 'Overwritten' },
    })) as Widget;
    expect(replaced.status).toEqual({ phase: 'Ready' });
    expect(replaced.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
  });

  it('bumps generation on spec changes only, and writes nothing for an unchanged object', async () => {
    const created = (await objects.create(widget('gen', { size: 1 }, { tier: 'a' }))) as Widget;
    const relabelled = (await objects.patch(
      { ...widget('gen'), metadata: { name: 'gen', namespace: 'team-a', labels: { tier: 'b' } } },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    )) as Widget;
    expect(relabelled.metadata.generation).toBe(1);
    expect(relabelled.metadata.labels).toEqual({ tier: 'b' });
    const resized = (await objects.patch(
      { ...widget('gen', { size: 2 }) },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    )) as Widget;
    expect(resized.metadata.generation).toBe(2);
    expect(resized.spec).toEqual({ size: 2 });
    const same = (await objects.patch(
      { ...widget('gen', { size: 2 }) },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    )) as Widget;
    expect(same.metadata.resourceVersion).toBe(resized.metadata.resourceVersion);
    expect(Number(created.metadata.resourceVersion)).toBeLessThan(
      Number(resized.metadata.resourceVersion),
    );
  });

  it('removes fields with null in a merge patch and applies JSON patches', async () => {
    await objects.create(widget('patchy', { size: 1, color: 'red', parts: ['a'] }));
    const merged = (await custom.patchNamespacedCustomObject(
      {
        ...WIDGETS,
        namespace: 'team-a',
        name: 'patchy',
        body: { spec: { color: null, shape: 'round' } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Widget;
    expect(merged.spec).toEqual({ size: 1, parts: ['a'], shape: 'round' });
    const patched = (await custom.patchNamespacedCustomObject({
      ...WIDGETS,
      namespace: 'team-a',
      name: 'patchy',
      body: [
        { op: 'add', path: '/spec/parts/-', value: 'b' },
        { op: 'replace', path: '/spec/size', value: 3 },
        { op: 'remove', path: '/spec/shape' },
      ],
    })) as Widget;
    expect(patched.spec).toEqual({ size: 3, parts: ['a', 'b'] });
    const failed = await failure(
      custom.patchNamespacedCustomObject({
        ...WIDGETS,
        namespace: 'team-a',
        name: 'patchy',
        body: [{ op: 'test', path: '/spec/size', value: 4 }],
      }),
    );
    expect(failed.code).toBe(422);
    expect(server.get<Widget>(WIDGETS, 'team-a', 'patchy')?.spec).toEqual({
      size: 3,
      parts: ['a', 'b'],
    });
  });

  it('refuses a replace or patch carrying a stale resourceVersion with 409 Conflict', async () => {
    const created = (await objects.create(widget('cas'))) as Widget;
    await objects.replace({ ...created, spec: { size: 2 } });
    const stale = await failure(objects.replace({ ...created, spec: { size: 3 } }));
    expect(stale.code).toBe(409);
    expect(stale.body).toMatchObject({
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on widgets.example.neutral.com "cas": the object has been modified; please apply your changes to the latest version and try again',
    });
    const stalePatch = await failure(
      custom.patchNamespacedCustomObject(
        {
          ...WIDGETS,
          namespace: 'team-a',
          name: 'cas',
          body: {
            metadata: { resourceVersion: created.metadata.resourceVersion },
            spec: { size: 4 },
          },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(stalePatch.code).toBe(409);
    expect(server.get<Widget>(WIDGETS, 'team-a', 'cas')?.spec).toEqual({ size: 2 });
  });

  it('refuses a custom resource replace without resourceVersion, as the real server does', async () => {
    const created = (await objects.create(widget('unconditional'))) as Widget;
    const { resourceVersion: _rv, ...metadata } = created.metadata;
    const refused = await failure(objects.replace({ ...created, metadata, spec: { size: 5 } }));
    expect(refused.code).toBe(422);
    expect(refused.body.message).toBe(
      'Widget.example.neutral.com "unconditional" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
    const dryRun = await failure(objects.create(widget('dry'), undefined, 'All'));
    expect(dryRun.code).toBe(400);
    expect(server.get(WIDGETS, 'team-a', 'dry')).toBeUndefined();
  });

  it('lists with label and field selectors, across namespaces and in pages', async () => {
    const labelled = (name: string, namespace: string, labels: Record<string, string>) => ({
      ...widget(name),
      metadata: { name, namespace, labels },
    });
    await objects.create(labelled('sel-1', 'sel', { app: 'web', tier: 'front' }));
    await objects.create(labelled('sel-2', 'sel', { app: 'web', tier: 'back' }));
    await objects.create(labelled('sel-3', 'sel', { app: 'db' }));
    await objects.create(labelled('sel-4', 'sel-other', { app: 'web' }));
    const names = async (labelSelector?: string, namespace = 'sel', fieldSelector?: string) => {
      const list = (await objects.list(
        'example.neutral.com/v1',
        'Widget',
        namespace,
        undefined,
        undefined,
        undefined,
        fieldSelector,
        labelSelector,
      )) as unknown as { kind: string; metadata: { resourceVersion: string }; items: Widget[] };
      expect(list.kind).toBe('WidgetList');
      expect(list.metadata.resourceVersion).toBe(server.resourceVersion);
      return list.items.map((item) => item.metadata.name);
    };
    expect(await names('app=web')).toEqual(['sel-1', 'sel-2']);
    expect(await names('app==web,tier!=front')).toEqual(['sel-2']);
    expect(await names('tier in (front, back)')).toEqual(['sel-1', 'sel-2']);
    expect(await names('app notin (web)')).toEqual(['sel-3']);
    expect(await names('tier')).toEqual(['sel-1', 'sel-2']);
    expect(await names('!tier')).toEqual(['sel-3']);
    expect(await names(undefined, 'sel', 'metadata.name=sel-3')).toEqual(['sel-3']);
    const all = (await custom.listClusterCustomObject({
      ...WIDGETS,
      labelSelector: 'app=web',
    })) as {
      items: Widget[];
    };
    expect(all.items.map((item) => `${item.metadata.namespace}/${item.metadata.name}`)).toEqual([
      'sel-other/sel-4',
      'sel/sel-1',
      'sel/sel-2',
    ]);
    const page = (await custom.listNamespacedCustomObject({
      ...WIDGETS,
      namespace: 'sel',
      limit: 2,
    })) as {
      items: Widget[];
      metadata: { continue?: string };
    };
    expect(page.items.map((item) => item.metadata.name)).toEqual(['sel-1', 'sel-2']);
    const rest = (await custom.listNamespacedCustomObject({
      ...WIDGETS,
      namespace: 'sel',
      limit: 2,
      _continue: page.metadata.continue,
    })) as { items: Widget[]; metadata: { continue?: string } };
    expect(rest.items.map((item) => item.metadata.name)).toEqual(['sel-3']);
    expect(rest.metadata.continue).toBeUndefined();
    const bad = await failure(names('app in web'));
    expect(bad.code).toBe(400);
    expect(bad.body.reason).toBe('BadRequest');
  });

  it('serves built-in kinds through the typed clients', async () => {
    const batch = server.kubeConfig().makeApiClient(BatchV1Api);
    const created = await batch.createNamespacedCronJob({
      namespace: 'team-a',
      body: {
        metadata: { name: 'nightly' },
        spec: {
          schedule: '0 1 * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' },
              },
            },
          },
        },
      },
    });
    expect(created.apiVersion).toBe('batch/v1');
    expect(created.kind).toBe('CronJob');
    const suspended = await batch.patchNamespacedCronJob(
      { namespace: 'team-a', name: 'nightly', body: { spec: { suspend: true } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(suspended.spec?.suspend).toBe(true);
    expect(suspended.spec?.schedule).toBe('0 1 * * *');
    const jobs = await batch.listNamespacedJob({ namespace: 'team-a' });
    expect(jobs.items).toEqual([]);

    const coordination = server.kubeConfig().makeApiClient(CoordinationV1Api);
    const lease = await coordination.createNamespacedLease({
      namespace: 'kube-system',
      body: {
        metadata: { name: 'leader' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
      },
    });
    const stale = await failure(
      coordination.replaceNamespacedLease({
        namespace: 'kube-system',
        name: 'leader',
        body: {
          ...lease,
          metadata: { ...lease.metadata, resourceVersion: '1' },
          spec: { holderIdentity: 'b' },
        },
      }),
    );
    expect(stale.code).toBe(409);
    const unconditional = await coordination.replaceNamespacedLease({
      namespace: 'kube-system',
      name: 'leader',
      body: {
        metadata: { name: 'leader' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
      },
    });
    const renewed = await coordination.replaceNamespacedLease({
      namespace: 'kube-system',
      name: 'leader',
      body: {
        ...unconditional,
        spec: { ...lease.spec, holderIdentity: 'a', renewTime: new Date() },
      },
    });
    expect(renewed.spec?.holderIdentity).toBe('a');
    expect(server.mutations({ kind: 'Lease' })).toBe(4);
  });

  it('records requests and answers discovery like the real server', async () => {
    interface Resource {
      name: string;
      kind: string;
      namespaced: boolean;
    }
    const json = async <T>(path: string) =>
      (await (await fetch(`${server.url}${path}`)).json()) as T;
    const list = await json<{ kind: string; groupVersion: string; resources: Resource[] }>(
      '/apis/example.neutral.com/v1',
    );
    expect(list).toMatchObject({ kind: 'APIResourceList', groupVersion: 'example.neutral.com/v1' });
    expect(list.resources.map((r) => r.name)).toEqual(['widgets', 'widgets/status']);
    const core = await json<{ resources: Resource[] }>('/api/v1');
    expect(core.resources.find((r) => r.name === 'pods')).toMatchObject({
      kind: 'Pod',
      namespaced: true,
    });
    expect(core.resources.find((r) => r.name === 'namespaces')).toMatchObject({
      namespaced: false,
    });
    const groups = await json<{ groups: Array<{ name: string }> }>('/apis');
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining([
        'batch',
        'coordination.k8s.io',
        'apiextensions.k8s.io',
        'example.neutral.com',
      ]),
    );
    const unknown = await fetch(`${server.url}/apis/nothing.example.com/v1/things`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    const wrongMethod = await fetch(
      `${server.url}/apis/example.neutral.com/v1/namespaces/team-a/widgets`,
      { method: 'PUT' },
    );
    expect(wrongMethod.status).toBe(405);
    expect(server.requests.at(-1)).toEqual({
      method: 'PUT',
      path: '/apis/example.neutral.com/v1/namespaces/team-a/widgets',
      query: {},
      kind: 'Widget',
      namespace: 'team-a',
      name: undefined,
      subresource: undefined,
    });
  });
});
