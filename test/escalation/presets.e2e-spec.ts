import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam, alertsProject } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;

describe('seeding alert presets', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let owner: TestAccount;
  let restricted: TestAccount;
  let viewer: TestAccount;
  let stranger: TestAccount;
  let projectId: string;
  let bareProjectId: string;

  const seedPath = (project: string) => `/projects/${project}/alerts/seed_presets`;
  const seed = (project: string, token = owner.jwt) =>
    t.request().post(seedPath(project)).set(bearer(token)).send();
  const get = async (path: string) =>
    (await t.request().get(path).set(bearer(owner.jwt)).expect(200)).body.data as Body[];
  /** Every row of the project's routing, so "nothing written" compares whole states. */
  const routing = async (project: string) => ({
    routes: await db.query(
      'SELECT id, name, updated_at FROM alert_route WHERE project_id = $1 ORDER BY id',
      [project],
    ),
    chains: await db.query(
      'SELECT id, name, updated_at FROM escalation_chain WHERE project_id = $1 ORDER BY id',
      [project],
    ),
    steps: await db.query(
      `SELECT s.id FROM escalation_step s JOIN escalation_chain c ON c.id = s.chain_id
        WHERE c.project_id = $1 ORDER BY s.id`,
      [project],
    ),
  });
  const expectRefused = (res: { status: number; body: Body }, existing: Body) => {
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'presets_already_configured',
      source_service: 'escalation',
      details: existing,
    });
  };

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    db = t.get(DataSource);
    ({ owner, restricted, viewer, stranger, projectId, bareProjectId } = await alertingTeam(
      t,
      'Presets Org',
    ));
  });

  afterAll(async () => {
    await t.close();
  });

  it('creates the default chain and routes and answers the counts', async () => {
    const res = await seed(projectId).expect(201);
    expect(res.body.metadata).toMatchObject({
      organization_id: owner.organizationId,
      project_id: projectId,
    });
    expect(res.body.data).toEqual({ routes: 2, escalation_chains: 1 });

    const now = t.clock.now().toISOString();
    const [chain] = await get(`/projects/${projectId}/escalation_chains`);
    const step = (position: number, delay: number, channels: string[]) => ({
      id: expect.any(String),
      chain_id: chain.id,
      position,
      delay_seconds: delay,
      target_type: 'org_admins',
      target_roster_id: null,
      target_member_id: null,
      target_role: null,
      channels,
      created_at: now,
      updated_at: now,
    });
    expect(chain).toEqual({
      id: expect.any(String),
      project_id: projectId,
      name: 'Page the organization admins',
      description: expect.stringMatching(/in-app and by e-mail at once, then called after five/),
      re_escalation_after: 1800,
      repeats: 2,
      steps: [step(0, 0, ['in_app', 'email']), step(1, 300, ['phone'])],
      created_at: now,
      updated_at: now,
    });

    const route = (fields: Body) => ({
      id: expect.any(String),
      project_id: projectId,
      matchers: [],
      in_app_target_type: 'org_admins',
      in_app_target_roster_id: null,
      in_app_target_member_id: null,
      in_app_target_role: null,
      notification_endpoint_ids: [],
      cooldown_seconds: null,
      // Storm control: what a storm brings within 30 s reaches people as one notification.
      bundle_window_seconds: 30,
      last_notified_at: null,
      enabled: true,
      created_at: now,
      updated_at: now,
      ...fields,
    });
    expect(await get(`/projects/${projectId}/alert_routes`)).toEqual([
      route({
        name: 'Critical alerts',
        priority: 100,
        escalation_chain_id: chain.id,
        min_severity_for_notification: 'critical',
      }),
      route({
        name: 'All other alerts',
        priority: 1000,
        escalation_chain_id: null,
        min_severity_for_notification: null,
      }),
    ]);

    // Critical alerts escalate; everything else falls through to the catch-all.
    const preview = async (severity: string) =>
      (
        await t
          .request()
          .post(`/projects/${projectId}/alert_routes/preview`)
          .set(bearer(owner.jwt))
          .send({ labels: { alertname: 'Anything' }, severity })
          .expect(200)
      ).body.data.route.name as string;
    expect(await preview('critical')).toBe('Critical alerts');
    for (const severity of ['high', 'warning', 'info'])
      expect(await preview(severity)).toBe('All other alerts');
  });

  it('refuses to seed twice and writes nothing', async () => {
    const project = await alertsProject(t, owner, 'twice');
    await seed(project).expect(201);
    const before = await routing(project);
    t.clock.advance({ minutes: 1 });
    expectRefused(await seed(project), { routes: 2, escalation_chains: 1 });
    expect(await routing(project)).toEqual(before);
  });

  it('refuses a project that has a single route of its own', async () => {
    const project = await alertsProject(t, owner, 'one route');
    await t
      .request()
      .post(`/projects/${project}/alert_routes`)
      .set(bearer(owner.jwt))
      .send({ name: 'mine', priority: 5 })
      .expect(201);
    const before = await routing(project);
    expectRefused(await seed(project), { routes: 1, escalation_chains: 0 });
    expect(await routing(project)).toEqual(before);
    expect(before.routes).toHaveLength(1);
    expect(before.chains).toHaveLength(0);
  });

  it('refuses a project that has a single chain of its own, even without steps', async () => {
    const project = await alertsProject(t, owner, 'one chain');
    await t
      .request()
      .post(`/projects/${project}/escalation_chains`)
      .set(bearer(owner.jwt))
      .send({ name: 'mine' })
      .expect(201);
    const before = await routing(project);
    expectRefused(await seed(project), { routes: 0, escalation_chains: 1 });
    expect(await routing(project)).toEqual(before);
    expect(before.chains).toHaveLength(1);
    expect(before.routes).toHaveLength(0);
  });

  it('seeds once when two requests race', async () => {
    const project = await alertsProject(t, owner, 'race');
    const answers = await Promise.all([seed(project), seed(project), seed(project)]);
    expect(answers.map((res) => res.status).sort()).toEqual([201, 422, 422]);
    const state = await routing(project);
    expect([state.routes.length, state.chains.length, state.steps.length]).toEqual([2, 1, 2]);
  });

  it('leaves other projects alone: their routing does not count and is not touched', async () => {
    const seeded = await alertsProject(t, owner, 'neighbour a');
    const other = await alertsProject(t, owner, 'neighbour b');
    await seed(other).expect(201);
    const before = await routing(other);
    expect((await seed(seeded).expect(201)).body.data).toEqual({
      routes: 2,
      escalation_chains: 1,
    });
    expect(await routing(other)).toEqual(before);
  });

  describe('access', () => {
    it('needs the alerts delete permission of a member', async () => {
      const project = await alertsProject(t, owner, 'members');
      for (const member of [viewer, restricted]) {
        const res = await seed(project, member.jwt).expect(403);
        expect(res.body.code).toBe('forbidden');
      }
      expect(await routing(project)).toEqual({ routes: [], chains: [], steps: [] });
    });

    it('is a manage-level action of the alerts scope for tokens', async () => {
      const project = await alertsProject(t, owner, 'tokens');
      for (const scopes of [['alerts:write'], ['alerts:read'], ['alert_routes:*']]) {
        const token = await mintToken(t, owner.jwt, scopes);
        const res = await seed(project, token).expect(403);
        expect([scopes, res.body.code]).toEqual([scopes, 'insufficient_scope']);
      }
      const manage = await mintToken(t, owner.jwt, ['alerts:manage']);
      await seed(project, manage).expect(201);
    });

    it('hides other organizations and needs the alerts capability', async () => {
      const project = await alertsProject(t, owner, 'hidden');
      expect((await seed(project, stranger.jwt).expect(404)).body.code).toBe('not_found');
      expect((await seed(bareProjectId).expect(403)).body.code).toBe(
        'alerts_capability_not_enabled',
      );
      await t.request().post(seedPath(project)).expect(401);
      expect(await routing(project)).toEqual({ routes: [], chains: [], steps: [] });
      expect(await routing(bareProjectId)).toEqual({ routes: [], chains: [], steps: [] });
    });
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await t.request().get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { tags: string[]; responses: Record<string, Body> }>>;
    };
    const operation = doc.paths['/projects/{project_id}/alerts/seed_presets'].post;
    expect(operation.tags).toContain('escalation');
    expect(Object.keys(operation.responses).sort()).toEqual([
      '201',
      // 400, 413, 415 and 503: the request contract's, as on every versioned route
      '400',
      '401',
      '403',
      '404',
      // idempotency_key_in_use: a create retried with its Idempotency-Key while the first runs
      '409',
      '413',
      '415',
      '422',
      '503',
    ]);
    expect(JSON.stringify(operation.responses['422'])).toContain('presets_already_configured');
  });
});
