import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam, alertsProject } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;

const MISSING = '00000000-0000-4000-8000-000000000000';
const INT_MAX = 2147483647;

describe('alert route clone', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let owner: TestAccount;
  let developer: TestAccount;
  let restricted: TestAccount;
  let viewer: TestAccount;
  let projectId: string;
  let otherProjectId: string;
  let bareProjectId: string;

  const routes = (project = projectId) => `/projects/${project}/alert_routes`;
  const create = async (body: Body, project = projectId) =>
    (await t.request().post(routes(project)).set(bearer(owner.jwt)).send(body).expect(201)).body
      .data as Body;
  const clone = (id: string, body?: Body, jwt = owner.jwt, project = projectId) => {
    const req = t
      .request()
      .post(`${routes(project)}/${id}/clone`)
      .set(bearer(jwt));
    return body === undefined ? req : req.send(body);
  };
  const show = async (id: string, project = projectId) =>
    (
      await t
        .request()
        .get(`${routes(project)}/${id}`)
        .set(bearer(owner.jwt))
        .expect(200)
    ).body.data as Body;
  const routeCount = async (project = projectId) =>
    (
      await db.query<Array<{ n: number }>>(
        'SELECT count(*)::int AS n FROM alert_route WHERE project_id = $1',
        [project],
      )
    )[0].n;
  const insertEndpoint = async (project: string) =>
    (
      await db.query<Array<{ id: string }>>(
        `INSERT INTO notification_endpoint (project_id, name, url, enabled, secret, created_at, updated_at)
         VALUES ($1, 'hook', 'http://127.0.0.1:9/hook', true, 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', now(), now())
         RETURNING id`,
        [project],
      )
    )[0].id;
  const insertChain = async (project: string) =>
    (
      await db.query<Array<{ id: string }>>(
        `INSERT INTO escalation_chain (project_id, name, created_at, updated_at)
         VALUES ($1, 'chain', now(), now()) RETURNING id`,
        [project],
      )
    )[0].id;
  const fieldsOf = (body: Body) =>
    ((body.details as { fields: Array<{ field: string }> }).fields ?? []).map((f) => f.field);

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    db = t.get(DataSource);
    ({ owner, developer, restricted, viewer, projectId, otherProjectId, bareProjectId } =
      await alertingTeam(t, 'Clone Org'));
  });

  afterAll(async () => {
    await t.close();
  });

  it('copies matchers, targets and endpoints, disabled, named "<name> (copy)", after the last route', async () => {
    const project = await alertsProject(t, owner, 'copies');
    const hook = await insertEndpoint(project);
    const chain = await insertChain(project);
    await create({ name: 'last', priority: 40 }, project);
    const source = await create(
      {
        name: 'prod db',
        priority: 7,
        matchers: [
          { label: 'env', op: 'eq', value: 'prod' },
          { label: 'service', op: 're', value: 'db-.*' },
        ],
        escalation_chain_id: chain,
        in_app_target_type: 'member',
        in_app_target_member_id: developer.accountId,
        min_severity_for_notification: 'warning',
        notification_endpoint_ids: [hook],
        cooldown_seconds: 300,
      },
      project,
    );
    expect(source.enabled).toBe(true);
    t.clock.advance({ minutes: 5 });

    const res = await clone(source.id as string, undefined, owner.jwt, project).expect(201);
    expect(res.body.metadata).toMatchObject({ project_id: project });
    expect(res.body.data).toEqual({
      ...source,
      id: expect.any(String),
      name: 'prod db (copy)',
      priority: 41,
      enabled: false,
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
    });
    expect(res.body.data.id).not.toBe(source.id);
    expect(await show(res.body.data.id as string, project)).toEqual(res.body.data);
    expect(await show(source.id as string, project)).toEqual(source);
    const attached = await db.query<Array<{ route_id: string }>>(
      'SELECT route_id FROM alert_route_endpoint WHERE endpoint_id = $1 ORDER BY route_id',
      [hook],
    );
    expect(attached.map((a) => a.route_id).sort()).toEqual(
      [source.id as string, res.body.data.id as string].sort(),
    );
  });

  it('takes a name and a priority from the body', async () => {
    const project = await alertsProject(t, owner, 'named');
    const source = await create({ name: 'web', priority: 5 }, project);
    const res = await clone(
      source.id as string,
      { name: 'web canary', priority: -2 },
      owner.jwt,
      project,
    ).expect(201);
    expect(res.body.data).toMatchObject({ name: 'web canary', priority: -2, enabled: false });

    const preview = await t
      .request()
      .post(`${routes(project)}/preview`)
      .set(bearer(owner.jwt))
      .send({ labels: {}, severity: 'critical' })
      .expect(200);
    expect((preview.body.data.route as Body).id).toBe(source.id);
  });

  it('shortens a long name so the copy fits 200 characters, and names an unnamed copy "(copy)"', async () => {
    const project = await alertsProject(t, owner, 'long names');
    const long = await create({ name: 'n'.repeat(200), priority: 1 }, project);
    const copy = (await clone(long.id as string, {}, owner.jwt, project).expect(201)).body.data;
    expect(copy.name).toBe(`${'n'.repeat(193)} (copy)`);
    const unnamed = await create({ priority: 2 }, project);
    expect(
      (await clone(unnamed.id as string, {}, owner.jwt, project).expect(201)).body.data.name,
    ).toBe('(copy)');
  });

  it('places the copy at the largest priority when the last route already has it', async () => {
    const project = await alertsProject(t, owner, 'max priority');
    const source = await create({ name: 'edge', priority: INT_MAX }, project);
    t.clock.advance({ seconds: 1 });
    const res = await clone(source.id as string, {}, owner.jwt, project).expect(201);
    expect(res.body.data.priority).toBe(INT_MAX);
    const listed = await t.request().get(routes(project)).set(bearer(owner.jwt)).expect(200);
    expect((listed.body.data as Body[]).map((r) => r.id)).toEqual([source.id, res.body.data.id]);
  });

  it('gives the copy a life of its own: editing or deleting one leaves the other', async () => {
    const hook = await insertEndpoint(projectId);
    const source = await create({
      name: 'original',
      priority: 100,
      matchers: [{ label: 'team', op: 'eq', value: 'db' }],
      notification_endpoint_ids: [hook],
    });
    const copy = (await clone(source.id as string).expect(201)).body.data as Body;
    await t
      .request()
      .patch(`${routes()}/${copy.id as string}`)
      .set(bearer(owner.jwt))
      .send({
        name: 'edited copy',
        enabled: true,
        matchers: [{ label: 'team', op: 'eq', value: 'web' }],
        notification_endpoint_ids: [],
      })
      .expect(200);
    expect(await show(source.id as string)).toEqual(source);

    await t
      .request()
      .delete(`${routes()}/${source.id as string}`)
      .set(bearer(owner.jwt))
      .expect(204);
    expect(await show(copy.id as string)).toMatchObject({
      name: 'edited copy',
      enabled: true,
      matchers: [{ label: 'team', op: 'eq', value: 'web' }],
      notification_endpoint_ids: [],
    });
  });

  it('refuses a bad body with 422 naming the fields and creates nothing', async () => {
    const source = await create({ name: 'bad body', priority: 200 });
    const before = await routeCount();
    for (const [body, fields] of [
      [{ name: 'x'.repeat(201) }, ['name']],
      [{ name: 5 }, ['name']],
      [{ priority: 1.5 }, ['priority']],
      [{ priority: '3' }, ['priority']],
      [{ priority: INT_MAX + 1 }, ['priority']],
      [{ name: 7, priority: 'first' }, ['name', 'priority']],
    ] as Array<[Body, string[]]>) {
      const res = await clone(source.id as string, body);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(fieldsOf(res.body)).toEqual(fields);
    }
    expect(await routeCount()).toBe(before);
  });

  it("answers 404 for unknown, malformed and another project's route ids, copying nothing", async () => {
    const elsewhere = await create({ name: 'staging route', priority: 1 }, otherProjectId);
    const before = await routeCount();
    const beforeOther = await routeCount(otherProjectId);
    for (const id of [MISSING, 'not-a-uuid', elsewhere.id as string]) {
      const res = await clone(id, {});
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect(await routeCount()).toBe(before);
    expect(await routeCount(otherProjectId)).toBe(beforeOther);
  });

  it('needs alerts:delete of a member and alert_routes:manage of a token', async () => {
    const source = await create({ name: 'guarded', priority: 300 });
    const before = await routeCount();
    for (const jwt of [viewer.jwt, restricted.jwt]) {
      const res = await clone(source.id as string, {}, jwt);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      expect(res.body.message).toMatch(/alerts:delete/);
    }
    for (const scopes of [['alert_routes:read'], ['alert_routes:write'], ['alerts:*']]) {
      const token = await mintToken(t, owner.jwt, scopes);
      const res = await clone(source.id as string, {}, token);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    }
    expect(await routeCount()).toBe(before);

    await clone(source.id as string, {}, developer.jwt).expect(201);
    const manage = await mintToken(t, owner.jwt, ['alert_routes:manage']);
    await clone(source.id as string, {}, manage).expect(201);
    expect(await routeCount()).toBe(before + 2);
  });

  it('answers 403 alerts_capability_not_enabled for a project without the grant', async () => {
    const res = await clone(MISSING, {}, owner.jwt, bareProjectId);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('alerts_capability_not_enabled');
  });
});
