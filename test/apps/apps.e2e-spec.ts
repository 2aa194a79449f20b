import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { appNamespace, HelmReleaseKind, HelmRepositoryKind, NamespaceKind } from '@platform/apps';
import type { KubeObject } from '@platform/kube';
import { DataSource } from 'typeorm';
import { bearer } from '../support/identity.js';
import {
  type AppsWorld,
  cached,
  cacheSynced,
  createAppsWorld,
  reconcile,
  releaseOf,
  VALUES,
} from './support.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The routes of /apps against a fake apps cluster, with Flux played by the test. */
describe('apps: Flux HelmReleases of a project', () => {
  let w: AppsWorld;
  const apps = (projectId = w.projectId) => `/apps?project_id=${projectId}`;
  const app = (id: string, projectId = w.projectId) => `/apps/${id}?project_id=${projectId}`;
  const create = (name: string, kind = 'container', values = VALUES[kind], projectId?: string) =>
    w.t
      .request()
      .post('/apps')
      .set(bearer(w.owner.jwt))
      .send({ project_id: projectId ?? w.projectId, name, kind, values });
  const get = (path: string) => w.t.request().get(path).set(bearer(w.owner.jwt));
  const patch = (path: string, body: object) =>
    w.t.request().patch(path).set(bearer(w.owner.jwt)).send(body);
  const audit = (
    action: string,
    id: string,
  ): Promise<Array<{ project_id: string; target_type: string; details: object }>> =>
    w.t
      .get(DataSource)
      .query(
        `SELECT project_id, target_type, details FROM audit_log WHERE action = $1 AND target_id = $2`,
        [action, id],
      );

  beforeAll(async () => {
    w = await createAppsWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('creates the namespace, the chart source and the HelmRelease, answering 201 with the app as it stands', async () => {
    const res = await create('shop').expect(201);
    expect(res.body.metadata.project_id).toBe(w.projectId);
    const id = res.body.data.id as string;
    expect(id).toMatch(UUID);
    expect(res.body.data).toEqual({
      id,
      project_id: w.projectId,
      name: 'shop',
      kind: 'container',
      status: 'progressing',
      values: { ...VALUES.container, replicas: 1 },
      image: 'registry.example.com/shop/web:1.4.2',
      url: 'https://shop.example.com',
      last_deployed_at: null,
    });

    const namespace = appNamespace(w.projectId);
    expect(namespace).toBe(`app-${w.projectId.slice(0, 8)}`);
    expect(w.kube.get<KubeObject>(NamespaceKind, undefined, namespace)?.metadata.labels).toEqual({
      'platform.neutral.com/organization-id': w.owner.organizationId,
      'platform.neutral.com/project-id': w.projectId,
    });
    const release = releaseOf(w, 'shop')!;
    expect(release.metadata.labels).toEqual({
      'platform.neutral.com/organization-id': w.owner.organizationId,
      'platform.neutral.com/project-id': w.projectId,
      'platform.neutral.com/app-kind': 'container',
      'platform.neutral.com/app-id': id,
    });
    expect(release.spec?.chart).toEqual({
      spec: {
        chart: 'web-app',
        sourceRef: { kind: 'HelmRepository', name: 'container', namespace: 'platform-apps' },
      },
    });
    expect(release.spec?.values).toEqual({
      image: { repository: 'registry.example.com/shop/web', tag: '1.4.2' },
      port: 8080,
      replicas: 1,
      host: 'shop.example.com',
    });
    expect(w.kube.get<KubeObject>(NamespaceKind, undefined, 'platform-apps')).toBeDefined();
    expect(
      w.kube.get<KubeObject<{ url: string }>>(HelmRepositoryKind, 'platform-apps', 'container')
        ?.spec,
    ).toEqual({ url: 'https://charts.neutral.com/apps', interval: '1h' });
    expect(await audit('apps.create', id)).toEqual([
      {
        project_id: w.projectId,
        target_type: 'app',
        details: { name: 'shop', kind: 'container' },
      },
    ]);
  });

  it("makes one chart source per kind, each kind's values where its chart reads them", async () => {
    await create('blog', 'wordpress').expect(201);
    await create('files', 'nextcloud').expect(201);
    const site = await create('site', 'static_site').expect(201);
    expect(site.body.data).toMatchObject({
      kind: 'static_site',
      image: null,
      url: 'https://www.example.com',
      values: { ...VALUES.static_site, git_branch: 'main', replicas: 1 },
    });
    const sources = Object.fromEntries(
      w.kube
        .list<KubeObject<{ url: string; type?: string }>>(HelmRepositoryKind, 'platform-apps')
        .map((source) => [source.metadata.name, source.spec]),
    );
    expect(sources).toEqual({
      container: { url: 'https://charts.neutral.com/apps', interval: '1h' },
      wordpress: { url: 'oci://registry-1.docker.io/bitnamicharts', type: 'oci', interval: '1h' },
      nextcloud: { url: 'https://nextcloud.github.io/helm/', interval: '1h' },
      'static-site': {
        url: 'oci://registry-1.docker.io/bitnamicharts',
        type: 'oci',
        interval: '1h',
      },
    });
    expect(releaseOf(w, 'files')?.spec?.values).toEqual({
      ingress: { enabled: true },
      nextcloud: { host: 'files.example.com' },
    });
    expect(releaseOf(w, 'site')?.spec?.chart?.spec.chart).toBe('nginx');
  });

  it('puts a chart source changed by hand back as the table says, on the next create of its kind', async () => {
    const source = w.kube.get<KubeObject<{ url: string }>>(
      HelmRepositoryKind,
      'platform-apps',
      'nextcloud',
    )!;
    w.kube.put(HelmRepositoryKind, {
      ...source,
      spec: { ...source.spec, url: 'oci://mirror.example.com/charts', type: 'oci' },
    });
    await create('files-2', 'nextcloud', VALUES.nextcloud, w.otherProjectId).expect(201);
    expect(
      w.kube.get<KubeObject<{ url: string }>>(HelmRepositoryKind, 'platform-apps', 'nextcloud')
        ?.spec,
    ).toEqual({ url: 'https://nextcloud.github.io/helm/', interval: '1h' });
  });

  it("lists the project's apps by name, each status and last deploy from the Ready condition", async () => {
    reconcile(w, 'shop', 'True', { at: '2024-05-01T10:00:00Z' });
    reconcile(w, 'blog', 'False');
    reconcile(w, 'files', 'Unknown');
    for (const name of ['shop', 'blog', 'files']) await cached(w, name);
    const res = await get(apps()).expect(200);
    expect(res.body.metadata.count).toBe(4);
    expect(
      res.body.data.map((a: { name: string; status: string; last_deployed_at: string | null }) => [
        a.name,
        a.status,
        a.last_deployed_at,
      ]),
    ).toEqual([
      ['blog', 'failed', null],
      ['files', 'progressing', null],
      ['shop', 'ready', '2024-05-01T10:00:00Z'],
      ['site', 'progressing', null],
    ]);
    const other = (await get(apps(w.otherProjectId)).expect(200)).body.data;
    expect(other.map((a: { name: string }) => a.name)).toEqual(['files-2']);
  });

  it('reads the list from the informer: no call per item, and none at all once it has synced', async () => {
    await cacheSynced(w);
    w.kube.clearRequests();
    const res = await get(apps()).expect(200);
    expect(res.body.data).toHaveLength(4);
    const shown = await get(app(res.body.data[0].id as string)).expect(200);
    expect(shown.body.data).toEqual(res.body.data[0]);
    expect(w.kube.requests.filter((r) => r.method === 'GET' && !r.query.watch)).toEqual([]);
  });

  it('sees its own writes at once: a create is in the next list', async () => {
    const created = await create('api').expect(201);
    const listed = await get(apps()).expect(200);
    expect(listed.body.data.map((a: { id: string }) => a.id)).toContain(created.body.data.id);
  });

  it('answers 409 conflict for a second app of the same name, writing nothing', async () => {
    const before = w.kube.mutations({ kind: 'HelmRelease' });
    const res = await create('shop').expect(409);
    expect(res.body.code).toBe('conflict');
    expect(w.kube.mutations({ kind: 'HelmRelease' })).toBe(before + 1);
    expect(releaseOf(w, 'shop')?.metadata.labels?.['platform.neutral.com/app-kind']).toBe(
      'container',
    );
  });

  it('PATCH replaces the values; a pinned digest stays with its image and goes with a new one', async () => {
    const id = (await get(apps()).expect(200)).body.data.find(
      (a: { name: string }) => a.name === 'shop',
    ).id as string;
    // What a registry push does (the webhook receiver): pin the digest the tag points at.
    const pinned = releaseOf(w, 'shop')!;
    const image = { ...(pinned.spec!.values!.image as object), digest: 'sha256:aaa' };
    w.kube.put(HelmReleaseKind, {
      ...pinned,
      spec: { ...pinned.spec, values: { ...pinned.spec!.values, image } },
    });
    const env = [{ name: 'LOG_LEVEL', value: 'debug' }];
    const kept = await patch(app(id), {
      values: { image: 'registry.example.com/shop/web:1.4.2', port: 9090, env },
    }).expect(200);
    expect(kept.body.data).toMatchObject({
      status: 'progressing',
      image: 'registry.example.com/shop/web:1.4.2@sha256:aaa',
      url: null,
      values: { image: 'registry.example.com/shop/web:1.4.2', port: 9090, replicas: 1, env },
    });
    expect(releaseOf(w, 'shop')?.spec?.values).toEqual({
      image: { repository: 'registry.example.com/shop/web', tag: '1.4.2', digest: 'sha256:aaa' },
      port: 9090,
      replicas: 1,
      env,
    });
    const moved = await patch(app(id), {
      values: { image: 'registry.example.com/shop/web:1.5.0', port: 9090 },
    }).expect(200);
    expect(moved.body.data.image).toBe('registry.example.com/shop/web:1.5.0');
    expect(releaseOf(w, 'shop')?.spec?.values).toEqual({
      image: { repository: 'registry.example.com/shop/web', tag: '1.5.0' },
      port: 9090,
      replicas: 1,
    });
    // Read back through the cache, the change is there already.
    expect((await get(app(id)).expect(200)).body.data).toEqual(moved.body.data);
    expect((await audit('apps.update', id)).map((row) => row.details)).toEqual([
      { name: 'shop', kind: 'container' },
      { name: 'shop', kind: 'container' },
    ]);
  });

  it('PATCH of the kind moves the chart and the label; the name is fixed', async () => {
    const created = await create('landing').expect(201);
    const id = created.body.data.id as string;
    const res = await patch(app(id), { kind: 'static_site', values: VALUES.static_site }).expect(
      200,
    );
    expect(res.body.data).toMatchObject({ id, kind: 'static_site', image: null });
    const release = releaseOf(w, 'landing')!;
    expect(release.metadata.labels?.['platform.neutral.com/app-kind']).toBe('static_site');
    expect(release.spec?.chart?.spec).toEqual({
      chart: 'nginx',
      sourceRef: { kind: 'HelmRepository', name: 'static-site', namespace: 'platform-apps' },
    });
    expect(release.spec?.values).not.toHaveProperty('image');
    expect((await audit('apps.update', id))[0].details).toEqual({
      name: 'landing',
      kind: 'static_site',
      previous_kind: 'container',
    });

    const renamed = await patch(app(id), { name: 'other' }).expect(422);
    expect(renamed.body.details.fields).toEqual([expect.objectContaining({ field: 'name' })]);
    await patch(app(id), { name: 'landing' }).expect(200);
  });

  it('DELETE answers 204; the app is gone from reads while Flux uninstalls it', async () => {
    const created = await create('temp').expect(201);
    const id = created.body.data.id as string;
    // Flux holds a finalizer until the release is uninstalled.
    const release = releaseOf(w, 'temp')!;
    w.kube.put(HelmReleaseKind, {
      ...release,
      metadata: { ...release.metadata, finalizers: ['finalizers.fluxcd.io'] },
    });
    await w.t.request().delete(app(id)).set(bearer(w.owner.jwt)).expect(204);
    expect(releaseOf(w, 'temp')?.metadata.deletionTimestamp).toBeDefined();
    expect((await get(app(id)).expect(404)).body.code).toBe('not_found');
    const listed = await get(apps()).expect(200);
    expect(listed.body.data.map((a: { name: string }) => a.name)).not.toContain('temp');
    await w.t.request().delete(app(id)).set(bearer(w.owner.jwt)).expect(404);
    expect(await audit('apps.delete', id)).toEqual([
      { project_id: w.projectId, target_type: 'app', details: { name: 'temp' } },
    ]);
  });
});
