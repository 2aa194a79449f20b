import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { AlertRoutesService } from '../../libs/alerting/src/routes/alert-routes.service.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam, alertsProject } from '../support/alerting.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('alert routes', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let owner: TestAccount;
  let developer: TestAccount;
  let restricted: TestAccount;
  let viewer: TestAccount;
  let stranger: TestAccount;
  let projectId: string;
  let otherProjectId: string;
  let bareProjectId: string;

  const routes = (project = projectId) => `/projects/${project}/alert_routes`;
  const create = (body: Body, jwt = owner.jwt, project = projectId) =>
    t.request().post(routes(project)).set(bearer(jwt)).send(body);
  const patch = (id: string, body: Body, jwt = owner.jwt) =>
    t.request().patch(`${routes()}/${id}`).set(bearer(jwt)).send(body);
  const show = (id: string, jwt = owner.jwt) =>
    t.request().get(`${routes()}/${id}`).set(bearer(jwt));
  const list = async (project = projectId) =>
    (await t.request().get(routes(project)).set(bearer(owner.jwt)).expect(200)).body.data as Body[];
  const created = async (body: Body) => (await create(body).expect(201)).body.data as Body;
  const routeCount = async (project = projectId) =>
    Number(
      (
        await db.query<Array<{ n: number }>>(
          'SELECT count(*)::int AS n FROM alert_route WHERE project_id = $1',
          [project],
        )
      )[0].n,
    );
  const fieldsOf = (body: Body) =>
    ((body.details as { fields: Array<{ field: string }> }).fields ?? []).map((f) => f.field);
  const expect422 = (res: { status: number; body: Body }, fields: string[]) => {
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(fieldsOf(res.body)).toEqual(fields);
  };
  const expectDoesNothing = (res: { status: number; body: Body }) => {
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('route_does_nothing');
    expect(res.body.message).toMatch(/must do something/);
  };

  const insertNamed = async (table: string, project: string, name: string) =>
    (
      await db.query<Array<{ id: string }>>(
        `INSERT INTO ${table} (project_id, name, created_at, updated_at)
         VALUES ($1, $2, now(), now()) RETURNING id`,
        [project, name],
      )
    )[0].id;
  const insertEndpoint = async (project: string, enabled = true) =>
    (
      await db.query<Array<{ id: string }>>(
        `INSERT INTO notification_endpoint (project_id, name, url, enabled, secret, created_at, updated_at)
         VALUES ($1, 'hook', 'http://127.0.0.1:9/hook', $2, 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', now(), now())
         RETURNING id`,
        [project, enabled],
      )
    )[0].id;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    db = t.get(DataSource);
    ({ owner, developer, restricted, viewer, stranger, projectId, otherProjectId, bareProjectId } =
      await alertingTeam(t, 'Routing Org'));
  });

  afterAll(async () => {
    await t.close();
  });

  describe('create, show and list', () => {
    it('creates a route with the defaults of every optional field', async () => {
      const res = await create({ priority: 10 }).expect(201);
      expect(res.body.metadata).toMatchObject({
        organization_id: owner.organizationId,
        project_id: projectId,
      });
      expect(res.body.data).toEqual({
        id: expect.any(String),
        project_id: projectId,
        name: '',
        priority: 10,
        matchers: [],
        escalation_chain_id: null,
        in_app_target_type: 'org_admins',
        in_app_target_roster_id: null,
        in_app_target_member_id: null,
        in_app_target_role: null,
        min_severity_for_notification: null,
        notification_endpoint_ids: [],
        cooldown_seconds: null,
        last_notified_at: null,
        enabled: true,
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
      const shown = await show(res.body.data.id).expect(200);
      expect(shown.body.data).toEqual(res.body.data);
    });

    it('requires an integer priority and creates nothing otherwise', async () => {
      const before = await routeCount();
      expect422(await create({ name: 'no priority' }), ['priority']);
      expect422(await create({ priority: 1.5 }), ['priority']);
      expect422(await create({ priority: '3' }), ['priority']);
      expect422(await create({ priority: null }), ['priority']);
      expect422(await create({ priority: 2 ** 31 }), ['priority']);
      expect(await routeCount()).toBe(before);
    });

    it('stores matchers as {label, op, value} and names each bad one', async () => {
      const route = await created({
        priority: 20,
        matchers: [
          { label: 'env', op: 'eq', value: 'prod', extra: 'dropped' },
          { label: 'service', op: 're', value: 'db-.*' },
        ],
      });
      expect(route.matchers).toEqual([
        { label: 'env', op: 'eq', value: 'prod' },
        { label: 'service', op: 're', value: 'db-.*' },
      ]);

      const before = await routeCount();
      const res = await create({
        priority: 21,
        matchers: [
          { label: 'env', op: 'eq', value: 'prod' },
          { label: 'env', op: 'like', value: 'prod' },
          { label: 'service', op: 're', value: '(unclosed' },
          { label: 'service', op: 're', value: '(?=lookahead)' },
        ],
      });
      expect422(res, ['matchers[1]', 'matchers[2]', 'matchers[3]']);
      expect422(await create({ priority: 21, matchers: 'env=prod' }), ['matchers']);
      expect422(
        await create({
          priority: 21,
          matchers: Array.from({ length: 51 }, () => ({ label: 'a', op: 'eq', value: 'b' })),
        }),
        ['matchers'],
      );
      expect(await routeCount()).toBe(before);
    });

    it('lists routes by priority, then the older first, then id', async () => {
      const project = await alertsProject(t, owner, 'ordering');
      const ids: Record<string, string> = {};
      for (const [name, priority] of [
        ['p5-first', 5],
        ['p1', 1],
        ['p5-second', 5],
        ['p-3', -3],
      ] as const) {
        t.clock.advance({ seconds: 1 });
        ids[name] = (await create({ name, priority }, owner.jwt, project).expect(201)).body.data.id;
      }
      const res = await t.request().get(routes(project)).set(bearer(owner.jwt)).expect(200);
      expect((res.body.data as Body[]).map((r) => r.name)).toEqual([
        'p-3',
        'p1',
        'p5-first',
        'p5-second',
      ]);
      expect(res.body.metadata.count).toBe(4);
    });

    it('answers 404 for unknown ids, malformed ids and routes of another project', async () => {
      const elsewhere = (await create({ priority: 1 }, owner.jwt, otherProjectId).expect(201)).body
        .data.id as string;
      for (const id of [MISSING, 'not-a-uuid', elsewhere]) {
        const res = await show(id).expect(404);
        expect(res.body.code).toBe('not_found');
        expect((await patch(id, { name: 'x' })).status).toBe(404);
        expect((await t.request().delete(`${routes()}/${id}`).set(bearer(owner.jwt))).status).toBe(
          404,
        );
        expect(
          (await t.request().post(`${routes()}/${id}/clone`).set(bearer(owner.jwt)).send({}))
            .status,
        ).toBe(404);
      }
      expect((await show(elsewhere).expect(404)).body.code).toBe('not_found');
    });

    it('hides the project from another organization', async () => {
      const res = await t.request().get(routes()).set(bearer(stranger.jwt)).expect(404);
      expect(res.body.code).toBe('not_found');
      expect((await create({ priority: 1 }, stranger.jwt)).status).toBe(404);
    });
  });

  describe('in-app targets', () => {
    it('needs a roster of this project for type roster', async () => {
      const roster = await insertNamed('on_call_roster', projectId, 'primary');
      const foreign = await insertNamed('on_call_roster', otherProjectId, 'theirs');
      const before = await routeCount();
      expect422(await create({ priority: 1, in_app_target_type: 'roster' }), [
        'in_app_target_roster_id',
      ]);
      expect422(
        await create({
          priority: 1,
          in_app_target_type: 'roster',
          in_app_target_roster_id: foreign,
        }),
        ['in_app_target_roster_id'],
      );
      expect422(
        await create({
          priority: 1,
          in_app_target_type: 'roster',
          in_app_target_roster_id: MISSING,
        }),
        ['in_app_target_roster_id'],
      );
      expect422(
        await create({ priority: 1, in_app_target_type: 'roster', in_app_target_roster_id: 'x' }),
        ['in_app_target_roster_id'],
      );
      expect(await routeCount()).toBe(before);
      const route = await created({
        priority: 1,
        in_app_target_type: 'roster',
        in_app_target_roster_id: roster,
        in_app_target_member_id: developer.accountId,
        in_app_target_role: 'Admin',
      });
      expect(route).toMatchObject({
        in_app_target_type: 'roster',
        in_app_target_roster_id: roster,
        in_app_target_member_id: null,
        in_app_target_role: null,
      });
    });

    it('needs an account holding a membership in the organization for type member', async () => {
      expect422(await create({ priority: 1, in_app_target_type: 'member' }), [
        'in_app_target_member_id',
      ]);
      expect422(
        await create({
          priority: 1,
          in_app_target_type: 'member',
          in_app_target_member_id: stranger.accountId,
        }),
        ['in_app_target_member_id'],
      );
      const route = await created({
        priority: 1,
        in_app_target_type: 'member',
        in_app_target_member_id: viewer.accountId,
      });
      expect(route).toMatchObject({
        in_app_target_type: 'member',
        in_app_target_member_id: viewer.accountId,
      });
    });

    it('needs Admin or Member for type role, and a known type', async () => {
      expect422(await create({ priority: 1, in_app_target_type: 'role' }), ['in_app_target_role']);
      expect422(
        await create({ priority: 1, in_app_target_type: 'role', in_app_target_role: 'Owner' }),
        ['in_app_target_role'],
      );
      expect422(await create({ priority: 1, in_app_target_type: 'everyone' }), [
        'in_app_target_type',
      ]);
      expect422(await create({ priority: 1, in_app_target_type: null }), ['in_app_target_type']);
      for (const role of ['Admin', 'Member']) {
        const route = await created({
          priority: 1,
          in_app_target_type: 'role',
          in_app_target_role: role,
        });
        expect(route.in_app_target_role).toBe(role);
      }
    });

    it('clears the other target fields when the type changes', async () => {
      const roster = await insertNamed('on_call_roster', projectId, 'secondary');
      const route = await created({
        priority: 2,
        in_app_target_type: 'roster',
        in_app_target_roster_id: roster,
      });
      const id = route.id as string;
      // A member id without the type is ignored: the type stays roster.
      let res = await patch(id, { in_app_target_member_id: developer.accountId }).expect(200);
      expect(res.body.data).toMatchObject({
        in_app_target_type: 'roster',
        in_app_target_roster_id: roster,
        in_app_target_member_id: null,
      });
      // Changing the type without what it needs changes nothing.
      expect422(await patch(id, { in_app_target_type: 'member' }), ['in_app_target_member_id']);
      expect((await show(id).expect(200)).body.data.in_app_target_roster_id).toBe(roster);

      res = await patch(id, {
        in_app_target_type: 'member',
        in_app_target_member_id: developer.accountId,
      }).expect(200);
      expect(res.body.data).toMatchObject({
        in_app_target_type: 'member',
        in_app_target_roster_id: null,
        in_app_target_member_id: developer.accountId,
        in_app_target_role: null,
      });
      res = await patch(id, { in_app_target_type: 'role', in_app_target_role: 'Member' }).expect(
        200,
      );
      expect(res.body.data).toMatchObject({
        in_app_target_type: 'role',
        in_app_target_member_id: null,
        in_app_target_role: 'Member',
      });
      res = await patch(id, { in_app_target_type: 'org_admins' }).expect(200);
      expect(res.body.data).toMatchObject({
        in_app_target_type: 'org_admins',
        in_app_target_roster_id: null,
        in_app_target_member_id: null,
        in_app_target_role: null,
      });
    });
  });

  describe('min_severity_for_notification', () => {
    it('treats null, "", "any" in any case and omission as any severity on create', async () => {
      for (const value of [undefined, null, '', 'any', 'ANY', 'Any']) {
        const body: Body = { priority: 30 };
        if (value !== undefined) body.min_severity_for_notification = value;
        expect((await created(body)).min_severity_for_notification).toBeNull();
      }
      for (const [value, stored] of [
        ['critical', 'critical'],
        ['high', 'high'],
        ['warning', 'warning'],
        ['info', 'info'],
        ['HIGH', 'high'],
      ]) {
        const route = await created({ priority: 30, min_severity_for_notification: value });
        expect(route.min_severity_for_notification).toBe(stored);
      }
    });

    it('refuses other values', async () => {
      const before = await routeCount();
      for (const value of ['urgent', 'none', 3, true])
        expect422(await create({ priority: 30, min_severity_for_notification: value }), [
          'min_severity_for_notification',
        ]);
      expect(await routeCount()).toBe(before);
    });

    it('leaves it unchanged when a PATCH omits it; "" and "ANY" reset it to any', async () => {
      const id = (await created({ priority: 31, min_severity_for_notification: 'high' }))
        .id as string;
      let res = await patch(id, { name: 'renamed' }).expect(200);
      expect(res.body.data.min_severity_for_notification).toBe('high');
      res = await patch(id, { min_severity_for_notification: '' }).expect(200);
      expect(res.body.data.min_severity_for_notification).toBeNull();
      res = await patch(id, { min_severity_for_notification: 'warning' }).expect(200);
      expect(res.body.data.min_severity_for_notification).toBe('warning');
      res = await patch(id, { priority: 32 }).expect(200);
      expect(res.body.data.min_severity_for_notification).toBe('warning');
      res = await patch(id, { min_severity_for_notification: 'ANY' }).expect(200);
      expect(res.body.data.min_severity_for_notification).toBeNull();
      await patch(id, { min_severity_for_notification: 'critical' }).expect(200);
      res = await patch(id, { min_severity_for_notification: null }).expect(200);
      expect(res.body.data.min_severity_for_notification).toBeNull();
      expect422(await patch(id, { min_severity_for_notification: 'severe' }), [
        'min_severity_for_notification',
      ]);
      expect((await show(id).expect(200)).body.data.min_severity_for_notification).toBeNull();
    });
  });

  describe('escalation chain', () => {
    it('must be a chain of this project, or null', async () => {
      const chain = await insertNamed('escalation_chain', projectId, 'ops');
      const foreign = await insertNamed('escalation_chain', otherProjectId, 'theirs');
      expect422(await create({ priority: 40, escalation_chain_id: foreign }), [
        'escalation_chain_id',
      ]);
      expect422(await create({ priority: 40, escalation_chain_id: MISSING }), [
        'escalation_chain_id',
      ]);
      expect422(await create({ priority: 40, escalation_chain_id: 'ops' }), [
        'escalation_chain_id',
      ]);
      const route = await created({ priority: 40, escalation_chain_id: chain });
      expect(route.escalation_chain_id).toBe(chain);
      const res = await patch(route.id as string, { escalation_chain_id: null }).expect(200);
      expect(res.body.data.escalation_chain_id).toBeNull();
    });

    it('is detached when the chain is deleted', async () => {
      const chain = await insertNamed('escalation_chain', projectId, 'doomed');
      const route = await created({ priority: 41, escalation_chain_id: chain });
      await db.query('DELETE FROM escalation_chain WHERE id = $1', [chain]);
      expect((await show(route.id as string).expect(200)).body.data.escalation_chain_id).toBeNull();
    });
  });

  describe('notification endpoints', () => {
    it('replaces the attached set on every submit; [] detaches all; foreign ids are dropped', async () => {
      const first = await insertEndpoint(projectId);
      const second = await insertEndpoint(projectId, false);
      const foreign = await insertEndpoint(otherProjectId);
      const route = await created({
        priority: 50,
        notification_endpoint_ids: [first, second, foreign, MISSING, 'not-an-id', first],
      });
      expect(route.notification_endpoint_ids).toEqual([first, second].sort());
      const id = route.id as string;

      let res = await patch(id, { name: 'hooks' }).expect(200);
      expect(res.body.data.notification_endpoint_ids).toEqual([first, second].sort());
      res = await patch(id, { notification_endpoint_ids: [second, foreign] }).expect(200);
      expect(res.body.data.notification_endpoint_ids).toEqual([second]);
      res = await patch(id, { notification_endpoint_ids: [] }).expect(200);
      expect(res.body.data.notification_endpoint_ids).toEqual([]);
      res = await patch(id, { notification_endpoint_ids: [first.toUpperCase()] }).expect(200);
      expect(res.body.data.notification_endpoint_ids).toEqual([first]);
      expect((await show(id).expect(200)).body.data.notification_endpoint_ids).toEqual([first]);

      expect422(await patch(id, { notification_endpoint_ids: 'all' }), [
        'notification_endpoint_ids',
      ]);
      expect422(await patch(id, { notification_endpoint_ids: [1, 2] }), [
        'notification_endpoint_ids',
      ]);
      expect((await show(id).expect(200)).body.data.notification_endpoint_ids).toEqual([first]);

      await db.query('DELETE FROM notification_endpoint WHERE id = $1', [first]);
      expect((await show(id).expect(200)).body.data.notification_endpoint_ids).toEqual([]);
    });

    it('takes more concurrent writes of routes with endpoints than the pool has connections', async () => {
      // Each write holds a transaction; its endpoints are read in that transaction, not on a
      // connection of their own, so twenty writes at once cannot wait on each other. (The
      // service is called directly so that the writes start together.)
      const endpoint = await insertEndpoint(projectId);
      const ids = await Promise.all(
        Array.from({ length: 20 }, async (_, n) => {
          const route = await created({
            priority: 600 + n,
            notification_endpoint_ids: [endpoint],
          });
          return route.id as string;
        }),
      );
      const service = t.get(AlertRoutesService);
      const written = await Promise.all(
        ids.flatMap((id, n) => [
          service.update(projectId, id, { name: `burst ${n}` }),
          service.clone(projectId, id, {}),
        ]),
      );
      expect(written.map((route) => route.notification_endpoint_ids)).toEqual(
        ids.flatMap(() => [[endpoint], [endpoint]]),
      );
    }, 30_000);
  });

  describe('a route must do something', () => {
    it('refuses a create with no in-app target, no chain and no enabled endpoint', async () => {
      const disabled = await insertEndpoint(projectId, false);
      const before = await routeCount();
      expectDoesNothing(await create({ priority: 60, in_app_target_type: 'none' }));
      expectDoesNothing(
        await create({
          priority: 60,
          in_app_target_type: 'none',
          notification_endpoint_ids: [disabled],
        }),
      );
      const foreign = await insertEndpoint(otherProjectId);
      expectDoesNothing(
        await create({
          priority: 60,
          in_app_target_type: 'none',
          notification_endpoint_ids: [foreign],
        }),
      );
      expect(await routeCount()).toBe(before);

      const enabled = await insertEndpoint(projectId);
      const chain = await insertNamed('escalation_chain', projectId, 'only-a-chain');
      await create({
        priority: 60,
        in_app_target_type: 'none',
        notification_endpoint_ids: [enabled, disabled],
      }).expect(201);
      await create({ priority: 60, in_app_target_type: 'none', escalation_chain_id: chain }).expect(
        201,
      );
    });

    it('evaluates the merged state on PATCH, counting only enabled endpoints', async () => {
      const hook = await insertEndpoint(projectId);
      const id = (
        await created({
          name: 'webhook only',
          priority: 61,
          in_app_target_type: 'none',
          notification_endpoint_ids: [hook],
        })
      ).id as string;
      expectDoesNothing(await patch(id, { notification_endpoint_ids: [] }));

      // Disabling the only endpoint: the stored route now does nothing, so any change to it
      // must give it something to do.
      await db.query('UPDATE notification_endpoint SET enabled = false WHERE id = $1', [hook]);
      expectDoesNothing(await patch(id, { name: 'renamed' }));
      expect((await show(id).expect(200)).body.data).toMatchObject({
        name: 'webhook only',
        notification_endpoint_ids: [hook],
      });
      const res = await patch(id, {
        in_app_target_type: 'org_admins',
        notification_endpoint_ids: [],
      }).expect(200);
      expect(res.body.data).toMatchObject({
        in_app_target_type: 'org_admins',
        notification_endpoint_ids: [],
      });
      expectDoesNothing(await patch(id, { in_app_target_type: 'none' }));

      const chain = await insertNamed('escalation_chain', projectId, 'pager');
      await patch(id, { in_app_target_type: 'none', escalation_chain_id: chain }).expect(200);
      expectDoesNothing(await patch(id, { escalation_chain_id: null }));
      expect((await show(id).expect(200)).body.data).toMatchObject({
        in_app_target_type: 'none',
        escalation_chain_id: chain,
      });
    });
  });

  describe('update and delete', () => {
    it('changes only what a PATCH sends, and validates what it sends', async () => {
      const route = await created({
        name: 'db',
        priority: 70,
        matchers: [{ label: 'service', op: 're', value: 'db-.*' }],
        cooldown_seconds: 300,
      });
      const id = route.id as string;
      t.clock.advance({ minutes: 5 });
      const res = await patch(id, { name: 'databases', enabled: false }).expect(200);
      expect(res.body.data).toEqual({
        ...route,
        name: 'databases',
        enabled: false,
        updated_at: t.clock.now().toISOString(),
      });

      expect422(await patch(id, { priority: null }), ['priority']);
      expect422(await patch(id, { enabled: null }), ['enabled']);
      expect422(await patch(id, { enabled: 'yes' }), ['enabled']);
      expect422(await patch(id, { cooldown_seconds: 0 }), ['cooldown_seconds']);
      expect422(await patch(id, { cooldown_seconds: 86401 }), ['cooldown_seconds']);
      expect422(await patch(id, { cooldown_seconds: 1.5 }), ['cooldown_seconds']);
      expect422(await patch(id, { matchers: [{ label: 'x', op: 're', value: '[' }] }), [
        'matchers[0]',
      ]);
      expect((await show(id).expect(200)).body.data).toEqual(res.body.data);

      const updated = await patch(id, {
        priority: -1,
        matchers: [],
        cooldown_seconds: 86400,
      }).expect(200);
      expect(updated.body.data).toMatchObject({
        priority: -1,
        matchers: [],
        cooldown_seconds: 86400,
      });
      expect(
        (await patch(id, { cooldown_seconds: null }).expect(200)).body.data.cooldown_seconds,
      ).toBeNull();
      expect((await patch(id, { matchers: null }).expect(200)).body.data.matchers).toEqual([]);
    });

    it('deletes a route with its endpoint attachments', async () => {
      const hook = await insertEndpoint(projectId);
      const id = (await created({ priority: 80, notification_endpoint_ids: [hook] })).id as string;
      await t.request().delete(`${routes()}/${id}`).set(bearer(owner.jwt)).expect(204);
      expect((await show(id).expect(404)).body.code).toBe('not_found');
      const attached = await db.query('SELECT 1 FROM alert_route_endpoint WHERE route_id = $1', [
        id,
      ]);
      expect(attached).toHaveLength(0);
      const again = await t.request().delete(`${routes()}/${id}`).set(bearer(owner.jwt));
      expect(again.status).toBe(404);
      expect(again.body.code).toBe('not_found');
    });
  });

  describe('clone', () => {
    it('copies every field and the endpoints, named "<name> (copy)", after the last route', async () => {
      const project = await alertsProject(t, owner, 'cloning');
      const hook = await insertEndpoint(project);
      const chain = await insertNamed('escalation_chain', project, 'chain');
      await create({ name: 'last', priority: 90 }, owner.jwt, project).expect(201);
      const source = (
        await create(
          {
            name: 'prod db',
            priority: 3,
            matchers: [{ label: 'env', op: 'eq', value: 'prod' }],
            escalation_chain_id: chain,
            in_app_target_type: 'role',
            in_app_target_role: 'Member',
            min_severity_for_notification: 'high',
            notification_endpoint_ids: [hook],
            cooldown_seconds: 120,
            enabled: false,
          },
          owner.jwt,
          project,
        ).expect(201)
      ).body.data as Body;
      await db.query('UPDATE alert_route SET last_notified_at = now() WHERE id = $1', [source.id]);
      t.clock.advance({ minutes: 1 });

      const res = await t
        .request()
        .post(`${routes(project)}/${source.id as string}/clone`)
        .set(bearer(owner.jwt))
        .expect(201);
      expect(res.body.data).toEqual({
        ...source,
        id: expect.any(String),
        name: 'prod db (copy)',
        priority: 91,
        last_notified_at: null,
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
      expect(res.body.data.id).not.toBe(source.id);

      const named = await t
        .request()
        .post(`${routes(project)}/${source.id as string}/clone`)
        .set(bearer(owner.jwt))
        .send({ name: 'second copy', priority: 4 })
        .expect(201);
      expect(named.body.data).toMatchObject({ name: 'second copy', priority: 4 });
      expect((await list(project)).map((r) => r.name)).toEqual([
        'prod db',
        'second copy',
        'last',
        'prod db (copy)',
      ]);
    });
  });

  describe('preview', () => {
    it('names the route that would win and why every route did or did not', async () => {
      const project = await alertsProject(t, owner, 'preview');
      const mk = async (body: Body) =>
        (await create(body, owner.jwt, project).expect(201)).body.data as Body;
      const off = await mk({ name: 'off', priority: 1, enabled: false });
      const db1 = await mk({
        name: 'db',
        priority: 2,
        matchers: [
          { label: 'env', op: 'eq', value: 'prod' },
          { label: 'service', op: 're', value: 'db-.*' },
        ],
      });
      const high = await mk({ name: 'high+', priority: 3, min_severity_for_notification: 'high' });
      const all = await mk({ name: 'all', priority: 4, cooldown_seconds: 600 });
      const preview = (body: Body, jwt = owner.jwt) =>
        t
          .request()
          .post(`${routes(project)}/preview`)
          .set(bearer(jwt))
          .send(body);

      let res = await preview({
        labels: { env: 'prod', service: 'web' },
        severity: 'warning',
      }).expect(200);
      expect(res.body.data).toEqual({
        labels: { env: 'prod', service: 'web' },
        severity: 'warning',
        route: expect.objectContaining({ id: all.id, name: 'all' }),
        cooldown_until: null,
        evaluations: [
          {
            route_id: off.id,
            name: 'off',
            priority: 1,
            enabled: false,
            outcome: 'disabled',
            failed_matchers: [],
          },
          {
            route_id: db1.id,
            name: 'db',
            priority: 2,
            enabled: true,
            outcome: 'matchers_failed',
            failed_matchers: [{ label: 'service', op: 're', value: 'db-.*' }],
          },
          {
            route_id: high.id,
            name: 'high+',
            priority: 3,
            enabled: true,
            outcome: 'below_threshold',
            failed_matchers: [],
          },
          {
            route_id: all.id,
            name: 'all',
            priority: 4,
            enabled: true,
            outcome: 'matched',
            failed_matchers: [],
          },
        ],
      });

      // The severity label stands in for an omitted severity; later matches are shadowed.
      res = await preview(
        { labels: { env: 'prod', service: 'db-7', severity: 'info' } },
        viewer.jwt,
      ).expect(200);
      expect(res.body.data.route.id).toBe(db1.id);
      expect((res.body.data.evaluations as Body[]).map((e) => e.outcome)).toEqual([
        'disabled',
        'matched',
        'below_threshold',
        'shadowed',
      ]);

      await db.query('UPDATE alert_route SET last_notified_at = $2 WHERE id = $1', [
        all.id,
        t.clock.now(),
      ]);
      res = await preview({ labels: {}, severity: 'critical' }).expect(200);
      expect(res.body.data.route.id).toBe(high.id);
      await t
        .request()
        .patch(`${routes(project)}/${high.id as string}`)
        .set(bearer(owner.jwt))
        .send({ enabled: false })
        .expect(200);
      res = await preview({ labels: {}, severity: 'critical' }).expect(200);
      expect(res.body.data.route.id).toBe(all.id);
      expect(res.body.data.cooldown_until).toBe(new Date(t.clock.nowMs() + 600_000).toISOString());

      const none = await alertsProject(t, owner, 'preview-empty');
      res = await t
        .request()
        .post(`${routes(none)}/preview`)
        .set(bearer(owner.jwt))
        .send({ labels: { env: 'prod' }, severity: 'critical' })
        .expect(200);
      expect(res.body.data).toMatchObject({ route: null, cooldown_until: null, evaluations: [] });
    });

    it('needs a severity, given or as a label, and string label values', async () => {
      const preview = (body: Body) =>
        t.request().post(`${routes()}/preview`).set(bearer(owner.jwt)).send(body);
      expect422(await preview({ labels: { env: 'prod' } }), ['severity']);
      expect422(await preview({ labels: { severity: 'loud' } }), ['severity']);
      expect422(await preview({ labels: {}, severity: 'loud' }), ['severity']);
      expect422(await preview({ labels: { env: 3 }, severity: 'info' }), ['labels.env']);
      expect422(await preview({ labels: 'env=prod', severity: 'info' }), ['labels']);
    });
  });

  describe('access', () => {
    it('lets a viewer read and preview, but not write', async () => {
      const id = (await created({ priority: 100 })).id as string;
      await t.request().get(routes()).set(bearer(viewer.jwt)).expect(200);
      await show(id, viewer.jwt).expect(200);
      await t
        .request()
        .post(`${routes()}/preview`)
        .set(bearer(viewer.jwt))
        .send({ labels: {}, severity: 'info' })
        .expect(200);
      for (const res of [
        await create({ priority: 1 }, viewer.jwt),
        await patch(id, { name: 'x' }, viewer.jwt),
        await t.request().delete(`${routes()}/${id}`).set(bearer(viewer.jwt)),
        await t.request().post(`${routes()}/${id}/clone`).set(bearer(viewer.jwt)).send({}),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
    });

    it('needs alerts:delete to create, clone or delete a route; alerts:update to change one', async () => {
      const denied = await create({ priority: 101 }, restricted.jwt);
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('forbidden');
      expect(denied.body.message).toMatch(/alerts:delete/);

      const id = (await create({ priority: 101 }, developer.jwt).expect(201)).body.data
        .id as string;
      const res = await patch(id, { name: 'by restricted' }, restricted.jwt).expect(200);
      expect(res.body.data.name).toBe('by restricted');
      for (const attempt of [
        await t.request().delete(`${routes()}/${id}`).set(bearer(restricted.jwt)),
        await t.request().post(`${routes()}/${id}/clone`).set(bearer(restricted.jwt)).send({}),
      ]) {
        expect(attempt.status).toBe(403);
        expect(attempt.body.code).toBe('forbidden');
      }
      await t.request().post(`${routes()}/${id}/clone`).set(bearer(developer.jwt)).expect(201);
      await t.request().delete(`${routes()}/${id}`).set(bearer(developer.jwt)).expect(204);
      await create({ priority: 101 }, owner.jwt).expect(201);
    });

    it('scopes static tokens to alert_routes: read, write (create, update), manage (delete, clone)', async () => {
      const readToken = await mintToken(t, owner.jwt, ['alert_routes:read']);
      const writeToken = await mintToken(t, owner.jwt, ['alert_routes:write']);
      const manageToken = await mintToken(t, owner.jwt, ['alert_routes:manage']);
      const alertsToken = await mintToken(t, owner.jwt, ['alerts:*']);
      const insufficient = (res: { status: number; body: Body }) => {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('insufficient_scope');
      };

      await t.request().get(routes()).set(bearer(readToken)).expect(200);
      await t
        .request()
        .post(`${routes()}/preview`)
        .set(bearer(readToken))
        .send({ labels: {}, severity: 'info' })
        .expect(200);
      insufficient(await create({ priority: 110 }, readToken));

      const id = (await create({ priority: 110 }, writeToken).expect(201)).body.data.id as string;
      await patch(id, { name: 'by token' }, writeToken).expect(200);
      insufficient(await t.request().delete(`${routes()}/${id}`).set(bearer(writeToken)));
      insufficient(
        await t.request().post(`${routes()}/${id}/clone`).set(bearer(writeToken)).send({}),
      );

      for (const res of [
        await t.request().get(routes()).set(bearer(alertsToken)),
        await show(id, alertsToken),
        await create({ priority: 110 }, alertsToken),
        await patch(id, { name: 'x' }, alertsToken),
        await t.request().delete(`${routes()}/${id}`).set(bearer(alertsToken)),
        await t
          .request()
          .post(`${routes()}/preview`)
          .set(bearer(alertsToken))
          .send({ labels: {}, severity: 'info' }),
      ])
        insufficient(res);

      await t.request().post(`${routes()}/${id}/clone`).set(bearer(manageToken)).expect(201);
      await t.request().delete(`${routes()}/${id}`).set(bearer(manageToken)).expect(204);
    });

    it('answers 403 alerts_capability_not_enabled on every route of a project without the grant', async () => {
      const base = routes(bareProjectId);
      const id = MISSING;
      const attempts = [
        t.request().get(base),
        t.request().post(base).send({ priority: 1 }),
        t.request().post(`${base}/preview`).send({ labels: {}, severity: 'info' }),
        t.request().get(`${base}/${id}`),
        t.request().patch(`${base}/${id}`).send({ name: 'x' }),
        t.request().delete(`${base}/${id}`),
        t.request().post(`${base}/${id}/clone`).send({}),
      ];
      for (const attempt of attempts) {
        const res = await attempt.set(bearer(owner.jwt));
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('alerts_capability_not_enabled');
      }
      expect(await routeCount(bareProjectId)).toBe(0);
    });
  });
});
