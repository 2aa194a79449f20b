import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { appNamespace, HelmReleaseKind, NamespaceKind } from '@platform/apps';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';
import { APP_KINDS, type AppsWorld, createAppsWorld, releaseOf, VALUES } from './support.js';

/** Who may do what with apps: Axis A per role, Axis B per kind, tenancy, and bad values. */
describe('apps: access, capabilities, tenancy and validation', () => {
  let w: AppsWorld;
  let shopId: string;
  const app = (id: string, projectId = w.projectId) => `/apps/${id}?project_id=${projectId}`;
  const create = (
    account: TestAccount,
    name: string,
    kind = 'container',
    values: unknown = VALUES[kind],
    projectId = w.projectId,
  ) =>
    w.t
      .request()
      .post('/apps')
      .set(bearer(account.jwt))
      .send({ project_id: projectId, name, kind, values });
  const read = (account: TestAccount, path: string) =>
    w.t.request().get(path).set(bearer(account.jwt));
  const patch = (account: TestAccount, path: string, body: object) =>
    w.t.request().patch(path).set(bearer(account.jwt)).send(body);
  const remove = (account: TestAccount, path: string) =>
    w.t.request().delete(path).set(bearer(account.jwt));
  const fields = (res: { body: { details: { fields: Array<{ field: string }> } } }) =>
    res.body.details.fields.map((f) => f.field).sort();

  beforeAll(async () => {
    w = await createAppsWorld();
    shopId = (await create(w.owner, 'shop').expect(201)).body.data.id as string;
  });
  afterAll(async () => {
    await w?.close();
  });

  describe('Axis A', () => {
    it('lets a viewer read, and nothing more', async () => {
      await read(w.viewer, `/apps?project_id=${w.projectId}`).expect(200);
      await read(w.viewer, app(shopId)).expect(200);
      for (const res of [
        await create(w.viewer, 'nope'),
        await patch(w.viewer, app(shopId), { values: VALUES.container }),
        await remove(w.viewer, app(shopId)),
      ]) {
        expect([res.status, res.body.code]).toEqual([403, 'forbidden']);
      }
      expect(releaseOf(w, 'nope')).toBeUndefined();
    });

    it('lets an operator create and change but not delete, a developer everything', async () => {
      const id = (await create(w.operator, 'ops-app').expect(201)).body.data.id as string;
      await patch(w.operator, app(id), { values: { ...VALUES.container, port: 81 } }).expect(200);
      const refused = await remove(w.operator, app(id)).expect(403);
      expect(refused.body.code).toBe('forbidden');
      await remove(w.developer, app(id)).expect(204);
      const own = (await create(w.developer, 'dev-app').expect(201)).body.data.id as string;
      await remove(w.developer, app(own)).expect(204);
    });

    it('gives a billing manager nothing, and anonymous callers 401', async () => {
      const res = await read(w.billing, `/apps?project_id=${w.projectId}`).expect(403);
      expect(res.body.code).toBe('forbidden');
      await w.t.request().get(`/apps?project_id=${w.projectId}`).expect(401);
    });

    it('holds a static token to its scopes: apps:read reads, and cannot create', async () => {
      const token = await mintToken(w.t, w.owner.jwt, ['apps:read']);
      await w.t.request().get(`/apps?project_id=${w.projectId}`).set(bearer(token)).expect(200);
      const res = await w.t
        .request()
        .post('/apps')
        .set(bearer(token))
        .send({
          project_id: w.projectId,
          name: 'via-token',
          kind: 'nextcloud',
          values: VALUES.nextcloud,
        })
        .expect(403);
      expect(res.body.code).toBe('insufficient_scope');
    });
  });

  describe('Axis B', () => {
    it.each(APP_KINDS)(
      'creates a %s app only where the kind is Available, writing nothing otherwise',
      async (kind) => {
        const name = `only-${kind.replace('_', '-')}`;
        await w.grant(w.otherProjectId, [kind]);
        for (const other of APP_KINDS.filter((k) => k !== kind)) {
          const before = w.kube.mutations();
          const res = await create(w.owner, name, other, VALUES[other], w.otherProjectId);
          expect([res.status, res.body.code]).toEqual([403, 'apps_capability_not_enabled']);
          expect(w.kube.mutations()).toBe(before);
        }
        await create(w.owner, name, kind, VALUES[kind], w.otherProjectId).expect(201);
      },
    );

    it('refuses every kind to a project without a grant, before looking at the values', async () => {
      for (const kind of APP_KINDS) {
        const res = await create(w.owner, 'bare', kind, { nonsense: true }, w.bareProjectId);
        expect([res.status, res.body.code]).toEqual([403, 'apps_capability_not_enabled']);
      }
      expect(w.kube.get(NamespaceKind, undefined, appNamespace(w.bareProjectId))).toBeUndefined();
      // Axis A first: a viewer learns nothing about the project's capabilities.
      const viewer = await create(w.viewer, 'bare', 'container', VALUES.container, w.bareProjectId);
      expect(viewer.body.code).toBe('forbidden');
    });

    it('a narrowed Limit stops new creates of a kind at once, and never touches running apps', async () => {
      const blog = (await create(w.owner, 'blog', 'wordpress').expect(201)).body.data.id as string;
      await w.limit(w.owner.organizationId, ['wordpress']);
      try {
        const res = await create(w.owner, 'shop-2');
        expect([res.status, res.body.code]).toEqual([403, 'apps_capability_not_enabled']);
        // The running container app stays, readable and changeable within its kind.
        expect(releaseOf(w, 'shop')).toBeDefined();
        await read(w.owner, app(shopId)).expect(200);
        await patch(w.owner, app(shopId), { values: { ...VALUES.container, replicas: 2 } }).expect(
          200,
        );
        // Axis B again when a change would move an app to a kind it may not create.
        const moved = await patch(w.owner, app(blog), {
          kind: 'container',
          values: VALUES.container,
        });
        expect([moved.status, moved.body.code]).toEqual([403, 'apps_capability_not_enabled']);
        expect(releaseOf(w, 'blog')?.metadata.labels?.['platform.neutral.com/app-kind']).toBe(
          'wordpress',
        );
      } finally {
        await w.limit(w.owner.organizationId, null);
      }
      await create(w.owner, 'shop-2').expect(201);
    });
  });

  describe('tenancy', () => {
    it('answers 404 for an app of another project of the organization, changing nothing', async () => {
      const before = releaseOf(w, 'shop')!.metadata.resourceVersion;
      for (const res of [
        await read(w.owner, app(shopId, w.otherProjectId)),
        await patch(w.owner, app(shopId, w.otherProjectId), { values: VALUES.container }),
        await remove(w.owner, app(shopId, w.otherProjectId)),
      ]) {
        expect([res.status, res.body.code]).toEqual([404, 'not_found']);
      }
      expect(releaseOf(w, 'shop')!.metadata.resourceVersion).toBe(before);
    });

    it('answers 404 to another organization, through our project or its own', async () => {
      await read(w.stranger, app(shopId)).expect(404);
      await read(w.stranger, app(shopId, w.strangerProjectId)).expect(404);
      await remove(w.stranger, app(shopId, w.strangerProjectId)).expect(404);
      const listed = await read(w.stranger, `/apps?project_id=${w.strangerProjectId}`).expect(200);
      expect(listed.body.data).toEqual([]);
      expect(releaseOf(w, 'shop')).toBeDefined();
    });

    it('answers 404 for an id that is no uuid', async () => {
      await read(w.owner, app('shop')).expect(404);
    });
  });

  describe('validation', () => {
    it('names every failing value (422) and writes nothing, not even the namespace', async () => {
      const project = w.strangerProjectId;
      const before = w.kube.mutations();
      const res = await create(
        w.stranger,
        'bad',
        'container',
        {
          image: 'registry.example.com/shop/web',
          replicas: 21,
          env: [{ name: '9LIVES', value: 'x' }],
          host: 'not a host',
        },
        project,
      ).expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(fields(res)).toEqual([
        'values.env.0.name',
        'values.host',
        'values.image',
        'values.port',
        'values.replicas',
      ]);
      const missing = await create(w.stranger, 'bad', 'container', {}, project).expect(422);
      expect(fields(missing)).toEqual(['values.image', 'values.port']);
      expect(w.kube.mutations()).toBe(before);
      expect(w.kube.get(NamespaceKind, undefined, appNamespace(project))).toBeUndefined();
    });

    it('refuses a bad name, an unknown kind, values that are no object and a missing project', async () => {
      const before = w.kube.mutations();
      expect(fields(await create(w.owner, 'Not_A_Name').expect(422))).toEqual(['name']);
      expect(fields(await create(w.owner, 'x', 'php', {}).expect(422))).toEqual(['kind']);
      expect(fields(await create(w.owner, 'x', 'container', 'text').expect(422))).toEqual([
        'values',
      ]);
      const noProject = await w.t
        .request()
        .post('/apps')
        .set(bearer(w.owner.jwt))
        .send({ name: 'x', kind: 'container', values: VALUES.container })
        .expect(422);
      expect(fields(noProject)).toEqual(['project_id']);
      await read(w.owner, '/apps').expect(422);
      expect(w.kube.mutations()).toBe(before);
    });

    it('refuses a PATCH with bad values, leaving the app as it was', async () => {
      const before = releaseOf(w, 'shop')!;
      const res = await patch(w.owner, app(shopId), {
        values: { ...VALUES.container, env: [{ name: 'A-B', value: '1' }] },
      }).expect(422);
      expect(fields(res)).toEqual(['values.env.0.name']);
      const changedKind = await patch(w.owner, app(shopId), { kind: 'nextcloud' }).expect(422);
      // The current values are checked against the new kind's schema.
      expect(fields(changedKind)).toEqual(['values.image', 'values.port', 'values.replicas']);
      expect(w.kube.get(HelmReleaseKind, before.metadata.namespace, 'shop')).toEqual(before);
    });
  });
});
