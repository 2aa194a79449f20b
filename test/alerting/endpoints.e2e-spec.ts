import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EndpointsRepository } from '@platform/alerting';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject, createProject } from '../support/alerting.js';
import {
  addMember,
  bearer,
  createAccount,
  mintToken,
  type TestAccount,
} from '../support/identity.js';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('notification endpoints: CRUD, validation and access', () => {
  let t: MailingTestApp;
  let owner: TestAccount;
  let viewer: TestAccount;
  let operator: TestAccount;
  let stranger: TestAccount;
  let projectId: string;
  let otherProjectId: string;
  let bareProjectId: string;

  const base = (project = projectId) => `/projects/${project}/notification_endpoints`;
  const create = (body: Record<string, unknown>, jwt = owner.jwt, project = projectId) =>
    t.request().post(base(project)).set(bearer(jwt)).send(body);
  const list = async (project = projectId) =>
    (await t.request().get(base(project)).set(bearer(owner.jwt)).expect(200)).body.data as Array<
      Record<string, unknown>
    >;
  const show = async (id: string) =>
    (await t.request().get(`${base()}/${id}`).set(bearer(owner.jwt)).expect(200)).body
      .data as Record<string, unknown>;
  const storedSecret = async (id: string) =>
    (
      (await t
        .get(DataSource)
        .query('SELECT secret FROM notification_endpoint WHERE id = $1', [id])) as Array<{
        secret: string;
      }>
    )[0]?.secret;
  const fieldsOf = (body: { details?: { fields?: Array<{ field: string }> } }) =>
    (body.details?.fields ?? []).map((f) => f.field).sort();

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    owner = await createAccount(t, t.sink, 'owner@endpoints.example');
    viewer = await addMember(t, t.sink, owner, 'viewer@endpoints.example', 'viewer');
    operator = await addMember(t, t.sink, owner, 'operator@endpoints.example', 'operator');
    stranger = await createAccount(t, t.sink, 'stranger@elsewhere.example');
    projectId = await alertsProject(t, owner);
    otherProjectId = await alertsProject(t, owner, 'staging');
    bareProjectId = await createProject(t, owner, 'no alerts here');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('creates an endpoint with defaults and shows the signing secret exactly once', async () => {
    const res = await create({
      name: 'Ops bridge',
      url: 'https://hooks.example.com/alerts',
    }).expect(201);
    expect(res.body.metadata).toMatchObject({
      organization_id: owner.organizationId,
      project_id: projectId,
    });
    expect(res.body.data).toEqual({
      id: expect.any(String),
      project_id: projectId,
      name: 'Ops bridge',
      url: 'https://hooks.example.com/alerts',
      enabled: true,
      events: ['alert_firing', 'alert_resolved'],
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
      secret: expect.stringMatching(SECRET),
    });
    const { id, secret } = res.body.data as { id: string; secret: string };
    // A Standard Webhooks library accepts it as a signing key.
    expect(new Webhook(secret).sign('msg_1', new Date(), '{}')).toMatch(/^v1,/);
    expect(await storedSecret(id)).toBe(secret);

    const shown = await show(id);
    expect(shown).not.toHaveProperty('secret');
    expect(shown).toEqual({ ...res.body.data, secret: undefined });
    const listed = (await list()).find((e) => e.id === id)!;
    expect(listed).not.toHaveProperty('secret');
    expect(JSON.stringify(await list())).not.toContain(secret);
  });

  it('stores events as a set in a fixed order and honours enabled', async () => {
    const res = await create({
      name: 'Resolved only',
      url: 'http://10.0.0.5:8080/hook?team=db',
      enabled: false,
      events: ['alert_resolved', 'alert_resolved'],
    }).expect(201);
    expect(res.body.data).toMatchObject({
      url: 'http://10.0.0.5:8080/hook?team=db',
      enabled: false,
      events: ['alert_resolved'],
    });
    const both = await create({
      name: 'Both',
      url: 'https://hooks.example.com/b',
      events: ['alert_resolved', 'alert_firing'],
    }).expect(201);
    expect(both.body.data.events).toEqual(['alert_firing', 'alert_resolved']);
    // Every endpoint gets its own secret.
    expect(both.body.data.secret).not.toBe(res.body.data.secret);
  });

  it('refuses bad bodies with 422 validation_failed naming the fields, creating nothing', async () => {
    const before = await list();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{}, ['name', 'url']],
      [{ name: 'x', url: 'ftp://hooks.example.com/alerts' }, ['url']],
      [{ name: 'x', url: 'https://user:hunter2@hooks.example.com/alerts' }, ['url']],
      [{ name: 'x', url: 'https://token@hooks.example.com/alerts' }, ['url']],
      [{ name: 'x', url: 'hooks.example.com/alerts' }, ['url']],
      [{ name: 'x', url: 'javascript:alert(1)' }, ['url']],
      [{ name: 'x', url: ' https://hooks.example.com/alerts' }, ['url']],
      [{ name: 'x', url: `https://hooks.example.com/${'a'.repeat(2048)}` }, ['url']],
      [{ name: 'x', url: 42 }, ['url']],
      [{ name: '   ', url: 'https://hooks.example.com/alerts' }, ['name']],
      [{ name: 'n'.repeat(201), url: 'https://hooks.example.com/alerts' }, ['name']],
      [{ name: 7, url: 'https://hooks.example.com/alerts' }, ['name']],
      [{ name: 'x', url: 'https://hooks.example.com/alerts', enabled: 'yes' }, ['enabled']],
      [{ name: 'x', url: 'https://hooks.example.com/alerts', events: [] }, ['events']],
      [{ name: 'x', url: 'https://hooks.example.com/alerts', events: 'alert_firing' }, ['events']],
      [
        { name: 'x', url: 'https://hooks.example.com/alerts', events: ['alert_firing', 'acked'] },
        ['events'],
      ],
      [{ name: '', url: 'mailto:ops@example.com', events: [1] }, ['events', 'name', 'url']],
    ];
    for (const [body, fields] of cases) {
      const res = await create(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 422,
        code: 'validation_failed',
      });
      expect({ body, fields: fieldsOf(res.body) }).toEqual({ body, fields });
    }
    expect(await list()).toEqual(before);
  });

  it('updates only the fields sent and keeps the secret out of the answer', async () => {
    const created = await create({ name: 'Patch me', url: 'https://hooks.example.com/p' }).expect(
      201,
    );
    const id = created.body.data.id as string;
    t.clock.advance({ minutes: 5 });
    const res = await t
      .request()
      .patch(`${base()}/${id}`)
      .set(bearer(owner.jwt))
      .send({ enabled: false })
      .expect(200);
    expect(res.body.data).toEqual({
      id,
      project_id: projectId,
      name: 'Patch me',
      url: 'https://hooks.example.com/p',
      enabled: false,
      events: ['alert_firing', 'alert_resolved'],
      created_at: created.body.data.created_at,
      updated_at: t.clock.now().toISOString(),
    });

    const renamed = await t
      .request()
      .patch(`${base()}/${id}`)
      .set(bearer(owner.jwt))
      .send({ name: 'Renamed', url: 'http://hooks.example.com:9000/q', events: ['alert_firing'] })
      .expect(200);
    expect(renamed.body.data).toMatchObject({
      name: 'Renamed',
      url: 'http://hooks.example.com:9000/q',
      enabled: false,
      events: ['alert_firing'],
    });
    // An empty PATCH changes nothing, not even updated_at.
    t.clock.advance({ minutes: 1 });
    const empty = await t.request().patch(`${base()}/${id}`).set(bearer(owner.jwt)).send({});
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual(renamed.body.data);
    expect(await storedSecret(id)).toBe(created.body.data.secret);
  });

  it('refuses a bad PATCH with 422 and changes nothing, not even the valid fields', async () => {
    const created = await create({ name: 'Stable', url: 'https://hooks.example.com/s' }).expect(
      201,
    );
    const id = created.body.data.id as string;
    const before = await show(id);
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ url: 'ftp://hooks.example.com/s' }, ['url']],
      [{ url: 'https://a:b@hooks.example.com/s' }, ['url']],
      [{ name: null }, ['name']],
      [{ url: null }, ['url']],
      [{ enabled: null }, ['enabled']],
      [{ events: null }, ['events']],
      [{ name: 'Changed', events: [] }, ['events']],
      [{ enabled: true, url: 'gopher://x' }, ['url']],
    ];
    for (const [body, fields] of cases) {
      const res = await t.request().patch(`${base()}/${id}`).set(bearer(owner.jwt)).send(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 422,
        code: 'validation_failed',
      });
      expect({ body, fields: fieldsOf(res.body) }).toEqual({ body, fields });
    }
    expect(await show(id)).toEqual(before);
  });

  it('rotates the secret: 200 with the new secret once, the old one replaced', async () => {
    const created = await create({ name: 'Rotate', url: 'https://hooks.example.com/r' }).expect(
      201,
    );
    const id = created.body.data.id as string;
    t.clock.advance({ minutes: 1 });
    const res = await t
      .request()
      .post(`${base()}/${id}/rotate_secret`)
      .set(bearer(owner.jwt))
      .expect(200);
    expect(res.body.data).toEqual({
      ...created.body.data,
      updated_at: t.clock.now().toISOString(),
      secret: expect.stringMatching(SECRET),
    });
    expect(res.body.data.secret).not.toBe(created.body.data.secret);
    expect(await storedSecret(id)).toBe(res.body.data.secret);
    expect(await show(id)).not.toHaveProperty('secret');
  });

  it('deletes with 204 and no body; afterwards the id is 404 everywhere', async () => {
    const created = await create({ name: 'Doomed', url: 'https://hooks.example.com/d' }).expect(
      201,
    );
    const id = created.body.data.id as string;
    const res = await t.request().delete(`${base()}/${id}`).set(bearer(owner.jwt)).expect(204);
    expect(res.text).toBe('');
    for (const [method, path] of [
      ['get', `${base()}/${id}`],
      ['patch', `${base()}/${id}`],
      ['delete', `${base()}/${id}`],
      ['post', `${base()}/${id}/rotate_secret`],
      ['get', `${base()}/${id}/deliveries`],
      ['post', `${base()}/${id}/test`],
    ] as const) {
      const answer = await t.request()[method](path).set(bearer(owner.jwt)).send({ name: 'x' });
      expect({ method, path, status: answer.status, code: answer.body.code }).toEqual({
        method,
        path,
        status: 404,
        code: 'not_found',
      });
    }
    expect((await list()).map((e) => e.id)).not.toContain(id);
  });

  it('lists no deliveries for a new endpoint, with count and total', async () => {
    const created = await create({ name: 'Quiet', url: 'https://hooks.example.com/q' }).expect(201);
    const res = await t
      .request()
      .get(`${base()}/${created.body.data.id}/deliveries`)
      .set(bearer(owner.jwt))
      .expect(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.metadata).toMatchObject({ count: 0, total: 0 });
  });

  it("answers 404 for another project's endpoint on every route and leaves it alone", async () => {
    const foreign = await create(
      { name: 'Staging hook', url: 'https://hooks.example.com/staging' },
      owner.jwt,
      otherProjectId,
    ).expect(201);
    const id = foreign.body.data.id as string;
    for (const [method, path, body] of [
      ['get', `${base()}/${id}`, undefined],
      ['patch', `${base()}/${id}`, { enabled: false }],
      ['delete', `${base()}/${id}`, undefined],
      ['post', `${base()}/${id}/rotate_secret`, undefined],
      ['get', `${base()}/${id}/deliveries`, undefined],
      ['post', `${base()}/${id}/test`, undefined],
      ['get', `${base()}/not-a-uuid`, undefined],
      ['get', `${base()}/${MISSING}`, undefined],
    ] as const) {
      const answer = await t.request()[method](path).set(bearer(owner.jwt)).send(body);
      expect({ method, path, status: answer.status, code: answer.body.code }).toEqual({
        method,
        path,
        status: 404,
        code: 'not_found',
      });
    }
    const still = await t
      .request()
      .get(`${base(otherProjectId)}/${id}`)
      .set(bearer(owner.jwt))
      .expect(200);
    expect(still.body.data).toEqual({ ...foreign.body.data, secret: undefined });
    expect(await storedSecret(id)).toBe(foreign.body.data.secret);
    expect((await list()).map((e) => e.id)).not.toContain(id);
  });

  it("answers 404 to another organization's member", async () => {
    const res = await t.request().get(base()).set(bearer(stranger.jwt)).expect(404);
    expect(res.body.code).toBe('not_found');
    const write = await create(
      { name: 'Intruder', url: 'https://evil.example.com/' },
      stranger.jwt,
    ).expect(404);
    expect(write.body.code).toBe('not_found');
  });

  it('answers 403 alerts_capability_not_enabled on every route without the grant', async () => {
    const id = MISSING;
    const bare = base(bareProjectId);
    for (const [method, path, body] of [
      ['get', bare, undefined],
      ['post', bare, { name: 'x', url: 'https://hooks.example.com/x' }],
      ['get', `${bare}/${id}`, undefined],
      ['patch', `${bare}/${id}`, { enabled: false }],
      ['delete', `${bare}/${id}`, undefined],
      ['post', `${bare}/${id}/rotate_secret`, undefined],
      ['get', `${bare}/${id}/deliveries`, undefined],
      ['post', `${bare}/${id}/test`, undefined],
    ] as const) {
      const answer = await t.request()[method](path).set(bearer(owner.jwt)).send(body);
      expect({ method, path, status: answer.status, code: answer.body.code }).toEqual({
        method,
        path,
        status: 403,
        code: 'alerts_capability_not_enabled',
      });
    }
    const rows: unknown[] = await t
      .get(DataSource)
      .query('SELECT 1 FROM notification_endpoint WHERE project_id = $1', [bareProjectId]);
    expect(rows).toHaveLength(0);
  });

  it('lets members read with alerts:read and write by level; custom actions need delete', async () => {
    const created = await create({ name: 'Levels', url: 'https://hooks.example.com/l' }).expect(
      201,
    );
    const id = created.body.data.id as string;

    await t.request().get(base()).set(bearer(viewer.jwt)).expect(200);
    await t.request().get(`${base()}/${id}`).set(bearer(viewer.jwt)).expect(200);
    await t.request().get(`${base()}/${id}/deliveries`).set(bearer(viewer.jwt)).expect(200);
    const viewerWrite = await create(
      { name: 'Nope', url: 'https://hooks.example.com/n' },
      viewer.jwt,
    ).expect(403);
    expect(viewerWrite.body.code).toBe('forbidden');
    const viewerPatch = await t
      .request()
      .patch(`${base()}/${id}`)
      .set(bearer(viewer.jwt))
      .send({ enabled: false })
      .expect(403);
    expect(viewerPatch.body.code).toBe('forbidden');

    // The operator role holds alerts read, create and update, not delete.
    const made = await create(
      { name: 'By operator', url: 'https://hooks.example.com/o' },
      operator.jwt,
    ).expect(201);
    expect(made.body.data.secret).toMatch(SECRET);
    await t
      .request()
      .patch(`${base()}/${id}`)
      .set(bearer(operator.jwt))
      .send({ name: 'Levels 2' })
      .expect(200);
    for (const [method, path] of [
      ['delete', `${base()}/${id}`],
      ['post', `${base()}/${id}/rotate_secret`],
      ['post', `${base()}/${id}/test`],
    ] as const) {
      const answer = await t.request()[method](path).set(bearer(operator.jwt));
      expect({ path, status: answer.status, code: answer.body.code }).toEqual({
        path,
        status: 403,
        code: 'forbidden',
      });
    }
    expect(await storedSecret(id)).toBe(created.body.data.secret);
  });

  it('checks static tokens against the notification_endpoints scope resource', async () => {
    const created = await create({ name: 'Scopes', url: 'https://hooks.example.com/s2' }).expect(
      201,
    );
    const id = created.body.data.id as string;
    const read = await mintToken(t, owner.jwt, ['notification_endpoints:read']);
    const write = await mintToken(t, owner.jwt, ['notification_endpoints:write']);
    const manage = await mintToken(t, owner.jwt, ['notification_endpoints:manage']);
    const umbrella = await mintToken(t, owner.jwt, ['alerts:*']);

    await t.request().get(base()).set(bearer(read)).expect(200);
    await t.request().get(`${base()}/${id}/deliveries`).set(bearer(read)).expect(200);
    const readWrite = await create({ name: 'r', url: 'https://hooks.example.com/r' }, read).expect(
      403,
    );
    expect(readWrite.body.code).toBe('insufficient_scope');

    const byToken = await create({ name: 'w', url: 'https://hooks.example.com/w' }, write).expect(
      201,
    );
    expect(byToken.body.data.secret).toMatch(SECRET);
    await t
      .request()
      .patch(`${base()}/${id}`)
      .set(bearer(write))
      .send({ name: 'Scopes 2' })
      .expect(200);
    for (const [method, path] of [
      ['delete', `${base()}/${id}`],
      ['post', `${base()}/${id}/rotate_secret`],
      ['post', `${base()}/${id}/test`],
    ] as const) {
      const answer = await t.request()[method](path).set(bearer(write));
      expect({ path, status: answer.status, code: answer.body.code }).toEqual({
        path,
        status: 403,
        code: 'insufficient_scope',
      });
    }

    // No umbrella: alerts:* does not reach this resource.
    const blocked = await t.request().get(base()).set(bearer(umbrella)).expect(403);
    expect(blocked.body.code).toBe('insufficient_scope');

    await t.request().post(`${base()}/${id}/rotate_secret`).set(bearer(manage)).expect(200);
    await t.request().delete(`${base()}/${id}`).set(bearer(manage)).expect(204);
  });

  it('findInProject answers only the endpoints of that project, with enabled', async () => {
    const on = await create({ name: 'on', url: 'https://hooks.example.com/on' }).expect(201);
    const off = await create({
      name: 'off',
      url: 'https://hooks.example.com/off',
      enabled: false,
    }).expect(201);
    const foreign = await create(
      { name: 'foreign', url: 'https://hooks.example.com/f' },
      owner.jwt,
      otherProjectId,
    ).expect(201);
    const found = await t
      .get(EndpointsRepository)
      .findInProject(projectId, [
        on.body.data.id,
        off.body.data.id,
        foreign.body.data.id,
        MISSING,
        'not-a-uuid',
      ]);
    expect(found.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [
        { id: on.body.data.id, enabled: true },
        { id: off.body.data.id, enabled: false },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(await t.get(EndpointsRepository).findInProject(projectId, [])).toEqual([]);
  });

  it('renders dates as ISO-8601 with milliseconds', async () => {
    const [first] = await list();
    expect(first.created_at).toMatch(ISO);
    expect(first.updated_at).toMatch(ISO);
  });
});
