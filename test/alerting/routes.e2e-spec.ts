import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type {
  PreviewAlertRouteBody,
  UpdateAlertRouteBody,
} from '../../libs/alerting/src/routes/alert-routes.dto.js';
import { AlertRoutesService } from '../../libs/alerting/src/routes/alert-routes.service.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertingTeam, alertsProject } from '../support/alerting.js';
import {
  api,
  type Credential,
  expectError,
  type ErrorResponse,
  type Loose,
} from '../support/clients/index.js';
import { mintToken, type TestAccount } from '../support/identity.js';

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

  const routes = (project = projectId, who: Credential = owner) =>
    api(t).as(who).alertRoutes(project);
  const routeCount = async (project = projectId) =>
    Number(
      (
        await db.query<Array<{ n: number }>>(
          'SELECT count(*)::int AS n FROM alert_route WHERE project_id = $1',
          [project],
        )
      )[0].n,
    );
  const expectDoesNothing = (res: ErrorResponse) =>
    expect(expectError(res, 422, 'route_does_nothing').message).toMatch(/must do something/);

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
      const res = await routes().raw.create({ priority: 10 }).expect(201);
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
        bundle_window_seconds: 0,
        cooldown_seconds: null,
        last_notified_at: null,
        enabled: true,
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
      expect(await routes().show(res.body.data.id)).toEqual(res.body.data);
    });

    it('requires an integer priority and creates nothing otherwise', async () => {
      const before = await routeCount();
      const { raw } = routes();
      expectError(await raw.create({ name: 'no priority' }), 422, 'validation_failed', [
        'priority',
      ]);
      expectError(await raw.create({ priority: 1.5 }), 422, 'validation_failed', ['priority']);
      expectError(await raw.create({ priority: '3' }), 422, 'validation_failed', ['priority']);
      expectError(await raw.create({ priority: null }), 422, 'validation_failed', ['priority']);
      expectError(await raw.create({ priority: 2 ** 31 }), 422, 'validation_failed', ['priority']);
      expect(await routeCount()).toBe(before);
    });

    it('stores matchers as {label, op, value} and names each bad one', async () => {
      const route = await routes().create({
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
      const { raw } = routes();
      const res = await raw.create({
        priority: 21,
        matchers: [
          { label: 'env', op: 'eq', value: 'prod' },
          { label: 'env', op: 'like', value: 'prod' },
          { label: 'service', op: 're', value: '(unclosed' },
          { label: 'service', op: 're', value: '(?=lookahead)' },
        ],
      });
      expectError(res, 422, 'validation_failed', ['matchers[1]', 'matchers[2]', 'matchers[3]']);
      expectError(
        await raw.create({ priority: 21, matchers: 'env=prod' }),
        422,
        'validation_failed',
        ['matchers'],
      );
      expectError(
        await raw.create({
          priority: 21,
          matchers: Array.from({ length: 51 }, () => ({ label: 'a', op: 'eq', value: 'b' })),
        }),
        422,
        'validation_failed',
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
        ids[name] = (await routes(project).create({ name, priority })).id;
      }
      const res = await routes(project).raw.list().expect(200);
      expect((res.body.data as Array<{ name: string }>).map((r) => r.name)).toEqual([
        'p-3',
        'p1',
        'p5-first',
        'p5-second',
      ]);
      expect(res.body.metadata.count).toBe(4);
    });

    it('answers 404 for unknown ids, malformed ids and routes of another project', async () => {
      const elsewhere = (await routes(otherProjectId).create({ priority: 1 })).id;
      const { raw } = routes();
      for (const id of [MISSING, 'not-a-uuid', elsewhere]) {
        expectError(await raw.show(id), 404, 'not_found');
        expect((await raw.update(id, { name: 'x' })).status).toBe(404);
        expect((await raw.delete(id)).status).toBe(404);
        expect((await raw.clone(id, {})).status).toBe(404);
      }
      expectError(await raw.show(elsewhere), 404, 'not_found');
    });

    it('hides the project from another organization', async () => {
      const { raw } = routes(projectId, stranger);
      expectError(await raw.list(), 404, 'not_found');
      expect((await raw.create({ priority: 1 })).status).toBe(404);
    });
  });

  describe('in-app targets', () => {
    it('needs a roster of this project for type roster', async () => {
      const roster = await insertNamed('on_call_roster', projectId, 'primary');
      const foreign = await insertNamed('on_call_roster', otherProjectId, 'theirs');
      const before = await routeCount();
      const { raw } = routes();
      expectError(
        await raw.create({ priority: 1, in_app_target_type: 'roster' }),
        422,
        'validation_failed',
        ['in_app_target_roster_id'],
      );
      expectError(
        await raw.create({
          priority: 1,
          in_app_target_type: 'roster',
          in_app_target_roster_id: foreign,
        }),
        422,
        'validation_failed',
        ['in_app_target_roster_id'],
      );
      expectError(
        await raw.create({
          priority: 1,
          in_app_target_type: 'roster',
          in_app_target_roster_id: MISSING,
        }),
        422,
        'validation_failed',
        ['in_app_target_roster_id'],
      );
      expectError(
        await raw.create({
          priority: 1,
          in_app_target_type: 'roster',
          in_app_target_roster_id: 'x',
        }),
        422,
        'validation_failed',
        ['in_app_target_roster_id'],
      );
      expect(await routeCount()).toBe(before);
      const route = await routes().create({
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
      const { raw } = routes();
      expectError(
        await raw.create({ priority: 1, in_app_target_type: 'member' }),
        422,
        'validation_failed',
        ['in_app_target_member_id'],
      );
      expectError(
        await raw.create({
          priority: 1,
          in_app_target_type: 'member',
          in_app_target_member_id: stranger.accountId,
        }),
        422,
        'validation_failed',
        ['in_app_target_member_id'],
      );
      const route = await routes().create({
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
      const { raw } = routes();
      expectError(
        await raw.create({ priority: 1, in_app_target_type: 'role' }),
        422,
        'validation_failed',
        ['in_app_target_role'],
      );
      expectError(
        await raw.create({ priority: 1, in_app_target_type: 'role', in_app_target_role: 'Owner' }),
        422,
        'validation_failed',
        ['in_app_target_role'],
      );
      expectError(
        await raw.create({ priority: 1, in_app_target_type: 'everyone' }),
        422,
        'validation_failed',
        ['in_app_target_type'],
      );
      expectError(
        await raw.create({ priority: 1, in_app_target_type: null }),
        422,
        'validation_failed',
        ['in_app_target_type'],
      );
      for (const role of ['Admin', 'Member'] as const) {
        const route = await routes().create({
          priority: 1,
          in_app_target_type: 'role',
          in_app_target_role: role,
        });
        expect(route.in_app_target_role).toBe(role);
      }
    });

    it('clears the other target fields when the type changes', async () => {
      const roster = await insertNamed('on_call_roster', projectId, 'secondary');
      const route = await routes().create({
        priority: 2,
        in_app_target_type: 'roster',
        in_app_target_roster_id: roster,
      });
      const id = route.id;
      // A member id without the type is ignored: the type stays roster.
      let changed = await routes().update(id, { in_app_target_member_id: developer.accountId });
      expect(changed).toMatchObject({
        in_app_target_type: 'roster',
        in_app_target_roster_id: roster,
        in_app_target_member_id: null,
      });
      // Changing the type without what it needs changes nothing.
      expectError(
        await routes().raw.update(id, { in_app_target_type: 'member' }),
        422,
        'validation_failed',
        ['in_app_target_member_id'],
      );
      expect((await routes().show(id)).in_app_target_roster_id).toBe(roster);

      changed = await routes().update(id, {
        in_app_target_type: 'member',
        in_app_target_member_id: developer.accountId,
      });
      expect(changed).toMatchObject({
        in_app_target_type: 'member',
        in_app_target_roster_id: null,
        in_app_target_member_id: developer.accountId,
        in_app_target_role: null,
      });
      changed = await routes().update(id, {
        in_app_target_type: 'role',
        in_app_target_role: 'Member',
      });
      expect(changed).toMatchObject({
        in_app_target_type: 'role',
        in_app_target_member_id: null,
        in_app_target_role: 'Member',
      });
      changed = await routes().update(id, { in_app_target_type: 'org_admins' });
      expect(changed).toMatchObject({
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
        const body =
          value === undefined
            ? { priority: 30 }
            : { priority: 30, min_severity_for_notification: value };
        expect((await routes().create(body)).min_severity_for_notification).toBeNull();
      }
      for (const [value, stored] of [
        ['critical', 'critical'],
        ['high', 'high'],
        ['warning', 'warning'],
        ['info', 'info'],
        ['HIGH', 'high'],
      ]) {
        const route = await routes().create({ priority: 30, min_severity_for_notification: value });
        expect(route.min_severity_for_notification).toBe(stored);
      }
    });

    it('refuses other values', async () => {
      const before = await routeCount();
      for (const value of ['urgent', 'none', 3, true])
        expectError(
          await routes().raw.create({ priority: 30, min_severity_for_notification: value }),
          422,
          'validation_failed',
          ['min_severity_for_notification'],
        );
      expect(await routeCount()).toBe(before);
    });

    it('leaves it unchanged when a PATCH omits it; "" and "ANY" reset it to any', async () => {
      const id = (await routes().create({ priority: 31, min_severity_for_notification: 'high' }))
        .id;
      const { update } = routes();
      let route = await update(id, { name: 'renamed' });
      expect(route.min_severity_for_notification).toBe('high');
      route = await update(id, { min_severity_for_notification: '' });
      expect(route.min_severity_for_notification).toBeNull();
      route = await update(id, { min_severity_for_notification: 'warning' });
      expect(route.min_severity_for_notification).toBe('warning');
      route = await update(id, { priority: 32 });
      expect(route.min_severity_for_notification).toBe('warning');
      route = await update(id, { min_severity_for_notification: 'ANY' });
      expect(route.min_severity_for_notification).toBeNull();
      await update(id, { min_severity_for_notification: 'critical' });
      route = await update(id, { min_severity_for_notification: null });
      expect(route.min_severity_for_notification).toBeNull();
      expectError(
        await routes().raw.update(id, { min_severity_for_notification: 'severe' }),
        422,
        'validation_failed',
        ['min_severity_for_notification'],
      );
      expect((await routes().show(id)).min_severity_for_notification).toBeNull();
    });
  });

  describe('escalation chain', () => {
    it('must be a chain of this project, or null', async () => {
      const chain = await insertNamed('escalation_chain', projectId, 'ops');
      const foreign = await insertNamed('escalation_chain', otherProjectId, 'theirs');
      const { raw } = routes();
      for (const escalation_chain_id of [foreign, MISSING, 'ops'])
        expectError(
          await raw.create({ priority: 40, escalation_chain_id }),
          422,
          'validation_failed',
          ['escalation_chain_id'],
        );
      const route = await routes().create({ priority: 40, escalation_chain_id: chain });
      expect(route.escalation_chain_id).toBe(chain);
      const updated = await routes().update(route.id, { escalation_chain_id: null });
      expect(updated.escalation_chain_id).toBeNull();
    });

    it('is detached when the chain is deleted', async () => {
      const chain = await insertNamed('escalation_chain', projectId, 'doomed');
      const route = await routes().create({ priority: 41, escalation_chain_id: chain });
      await db.query('DELETE FROM escalation_chain WHERE id = $1', [chain]);
      expect((await routes().show(route.id)).escalation_chain_id).toBeNull();
    });
  });

  describe('notification endpoints', () => {
    it('replaces the attached set on every submit; [] detaches all; foreign ids are dropped', async () => {
      const first = await insertEndpoint(projectId);
      const second = await insertEndpoint(projectId, false);
      const foreign = await insertEndpoint(otherProjectId);
      const route = await routes().create({
        priority: 50,
        notification_endpoint_ids: [first, second, foreign, MISSING, 'not-an-id', first],
      });
      expect(route.notification_endpoint_ids).toEqual([first, second].sort());
      const id = route.id;
      const { update, show, raw } = routes();

      let updated = await update(id, { name: 'hooks' });
      expect(updated.notification_endpoint_ids).toEqual([first, second].sort());
      updated = await update(id, { notification_endpoint_ids: [second, foreign] });
      expect(updated.notification_endpoint_ids).toEqual([second]);
      updated = await update(id, { notification_endpoint_ids: [] });
      expect(updated.notification_endpoint_ids).toEqual([]);
      updated = await update(id, { notification_endpoint_ids: [first.toUpperCase()] });
      expect(updated.notification_endpoint_ids).toEqual([first]);
      expect((await show(id)).notification_endpoint_ids).toEqual([first]);

      expectError(
        await raw.update(id, { notification_endpoint_ids: 'all' }),
        422,
        'validation_failed',
        ['notification_endpoint_ids'],
      );
      expectError(
        await raw.update(id, { notification_endpoint_ids: [1, 2] }),
        422,
        'validation_failed',
        ['notification_endpoint_ids'],
      );
      expect((await show(id)).notification_endpoint_ids).toEqual([first]);

      await db.query('DELETE FROM notification_endpoint WHERE id = $1', [first]);
      expect((await show(id)).notification_endpoint_ids).toEqual([]);
    });

    it('takes more concurrent writes of routes with endpoints than the pool has connections', async () => {
      // Each write holds a transaction; its endpoints are read in that transaction, not on a
      // connection of their own, so twenty writes at once cannot wait on each other. (The
      // service is called directly so that the writes start together.)
      const endpoint = await insertEndpoint(projectId);
      const ids = await Promise.all(
        Array.from({ length: 20 }, async (_, n) => {
          const route = await routes().create({
            priority: 600 + n,
            notification_endpoint_ids: [endpoint],
          });
          return route.id;
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
      const { create, raw } = routes();
      expectDoesNothing(await raw.create({ priority: 60, in_app_target_type: 'none' }));
      expectDoesNothing(
        await raw.create({
          priority: 60,
          in_app_target_type: 'none',
          notification_endpoint_ids: [disabled],
        }),
      );
      const foreign = await insertEndpoint(otherProjectId);
      expectDoesNothing(
        await raw.create({
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
      });
      await create({ priority: 60, in_app_target_type: 'none', escalation_chain_id: chain });
    });

    it('evaluates the merged state on PATCH, counting only enabled endpoints', async () => {
      const hook = await insertEndpoint(projectId);
      const { create, update, show, raw } = routes();
      const id = (
        await create({
          name: 'webhook only',
          priority: 61,
          in_app_target_type: 'none',
          notification_endpoint_ids: [hook],
        })
      ).id;
      expectDoesNothing(await raw.update(id, { notification_endpoint_ids: [] }));

      // Disabling the only endpoint: the stored route now does nothing, so any change to it
      // must give it something to do.
      await db.query('UPDATE notification_endpoint SET enabled = false WHERE id = $1', [hook]);
      expectDoesNothing(await raw.update(id, { name: 'renamed' }));
      expect(await show(id)).toMatchObject({
        name: 'webhook only',
        notification_endpoint_ids: [hook],
      });
      const updated = await update(id, {
        in_app_target_type: 'org_admins',
        notification_endpoint_ids: [],
      });
      expect(updated).toMatchObject({
        in_app_target_type: 'org_admins',
        notification_endpoint_ids: [],
      });
      expectDoesNothing(await raw.update(id, { in_app_target_type: 'none' }));

      const chain = await insertNamed('escalation_chain', projectId, 'pager');
      await update(id, { in_app_target_type: 'none', escalation_chain_id: chain });
      expectDoesNothing(await raw.update(id, { escalation_chain_id: null }));
      expect(await show(id)).toMatchObject({
        in_app_target_type: 'none',
        escalation_chain_id: chain,
      });
    });
  });

  describe('update and delete', () => {
    it('changes only what a PATCH sends, and validates what it sends', async () => {
      const { create, update, show, raw } = routes();
      const route = await create({
        name: 'db',
        priority: 70,
        matchers: [{ label: 'service', op: 're', value: 'db-.*' }],
        cooldown_seconds: 300,
      });
      const id = route.id;
      t.clock.advance({ minutes: 5 });
      const changed = await update(id, { name: 'databases', enabled: false });
      expect(changed).toEqual({
        ...route,
        name: 'databases',
        enabled: false,
        updated_at: t.clock.now().toISOString(),
      });

      const invalid: Array<[Loose<UpdateAlertRouteBody>, string]> = [
        [{ priority: null }, 'priority'],
        [{ enabled: null }, 'enabled'],
        [{ enabled: 'yes' }, 'enabled'],
        [{ cooldown_seconds: 0 }, 'cooldown_seconds'],
        [{ cooldown_seconds: 86401 }, 'cooldown_seconds'],
        [{ cooldown_seconds: 1.5 }, 'cooldown_seconds'],
        [{ matchers: [{ label: 'x', op: 're', value: '[' }] }, 'matchers[0]'],
      ];
      for (const [body, field] of invalid)
        expectError(await raw.update(id, body), 422, 'validation_failed', [field]);
      expect(await show(id)).toEqual(changed);

      const updated = await update(id, {
        priority: -1,
        matchers: [],
        cooldown_seconds: 86400,
      });
      expect(updated).toMatchObject({
        priority: -1,
        matchers: [],
        cooldown_seconds: 86400,
      });
      expect((await update(id, { cooldown_seconds: null })).cooldown_seconds).toBeNull();
      expect((await update(id, { matchers: null })).matchers).toEqual([]);
    });

    it('deletes a route with its endpoint attachments', async () => {
      const hook = await insertEndpoint(projectId);
      const { create, raw } = routes();
      const id = (await create({ priority: 80, notification_endpoint_ids: [hook] })).id;
      await routes().delete(id);
      expectError(await raw.show(id), 404, 'not_found');
      const attached = await db.query('SELECT 1 FROM alert_route_endpoint WHERE route_id = $1', [
        id,
      ]);
      expect(attached).toHaveLength(0);
      expectError(await raw.delete(id), 404, 'not_found');
    });
  });

  describe('clone', () => {
    it('copies every field and the endpoints, named "<name> (copy)", after the last route', async () => {
      const project = await alertsProject(t, owner, 'cloning');
      const hook = await insertEndpoint(project);
      const chain = await insertNamed('escalation_chain', project, 'chain');
      const { create, clone, list } = routes(project);
      await create({ name: 'last', priority: 90 });
      const source = await create({
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
      });
      await db.query('UPDATE alert_route SET last_notified_at = now() WHERE id = $1', [source.id]);
      t.clock.advance({ minutes: 1 });

      const copy = await clone(source.id);
      expect(copy).toEqual({
        ...source,
        id: expect.any(String),
        name: 'prod db (copy)',
        priority: 91,
        last_notified_at: null,
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      });
      expect(copy.id).not.toBe(source.id);

      const named = await clone(source.id, { name: 'second copy', priority: 4 });
      expect(named).toMatchObject({ name: 'second copy', priority: 4 });
      expect((await list()).map((r) => r.name)).toEqual([
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
      const { create, preview, update } = routes(project);
      const off = await create({ name: 'off', priority: 1, enabled: false });
      const db1 = await create({
        name: 'db',
        priority: 2,
        matchers: [
          { label: 'env', op: 'eq', value: 'prod' },
          { label: 'service', op: 're', value: 'db-.*' },
        ],
      });
      const high = await create({
        name: 'high+',
        priority: 3,
        min_severity_for_notification: 'high',
      });
      const all = await create({ name: 'all', priority: 4, cooldown_seconds: 600 });

      let outcome = await preview({
        labels: { env: 'prod', service: 'web' },
        severity: 'warning',
      });
      expect(outcome).toEqual({
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
      outcome = await routes(project, viewer).preview({
        labels: { env: 'prod', service: 'db-7', severity: 'info' },
      });
      expect(outcome.route?.id).toBe(db1.id);
      expect(outcome.evaluations.map((e) => e.outcome)).toEqual([
        'disabled',
        'matched',
        'below_threshold',
        'shadowed',
      ]);

      await db.query('UPDATE alert_route SET last_notified_at = $2 WHERE id = $1', [
        all.id,
        t.clock.now(),
      ]);
      outcome = await preview({ labels: {}, severity: 'critical' });
      expect(outcome.route?.id).toBe(high.id);
      await update(high.id, { enabled: false });
      outcome = await preview({ labels: {}, severity: 'critical' });
      expect(outcome.route?.id).toBe(all.id);
      expect(outcome.cooldown_until).toBe(new Date(t.clock.nowMs() + 600_000).toISOString());

      const none = await alertsProject(t, owner, 'preview-empty');
      outcome = await routes(none).preview({ labels: { env: 'prod' }, severity: 'critical' });
      expect(outcome).toMatchObject({ route: null, cooldown_until: null, evaluations: [] });
    });

    it('needs a severity, given or as a label, and string label values', async () => {
      const { raw } = routes();
      const invalid: Array<[Loose<PreviewAlertRouteBody>, string]> = [
        [{ labels: { env: 'prod' } }, 'severity'],
        [{ labels: { severity: 'loud' } }, 'severity'],
        [{ labels: {}, severity: 'loud' }, 'severity'],
        [{ labels: { env: 3 }, severity: 'info' }, 'labels.env'],
        [{ labels: 'env=prod', severity: 'info' }, 'labels'],
      ];
      for (const [body, field] of invalid)
        expectError(await raw.preview(body), 422, 'validation_failed', [field]);
    });
  });

  describe('access', () => {
    it('lets a viewer read and preview, but not write', async () => {
      const id = (await routes().create({ priority: 100 })).id;
      const asViewer = routes(projectId, viewer);
      await asViewer.list();
      await asViewer.show(id);
      await asViewer.preview({ labels: {}, severity: 'info' });
      for (const res of [
        await asViewer.raw.create({ priority: 1 }),
        await asViewer.raw.update(id, { name: 'x' }),
        await asViewer.raw.delete(id),
        await asViewer.raw.clone(id, {}),
      ])
        expectError(res, 403, 'forbidden');
    });

    it('needs alerts:delete to create, clone or delete a route; alerts:update to change one', async () => {
      const asRestricted = routes(projectId, restricted);
      const asDeveloper = routes(projectId, developer);
      const denied = await asRestricted.raw.create({ priority: 101 });
      expect(expectError(denied, 403, 'forbidden').message).toMatch(/alerts:delete/);

      const id = (await asDeveloper.create({ priority: 101 })).id;
      const renamed = await asRestricted.update(id, { name: 'by restricted' });
      expect(renamed.name).toBe('by restricted');
      for (const attempt of [
        await asRestricted.raw.delete(id),
        await asRestricted.raw.clone(id, {}),
      ])
        expectError(attempt, 403, 'forbidden');
      await asDeveloper.clone(id);
      await asDeveloper.delete(id);
      await routes().create({ priority: 101 });
    });

    it('scopes static tokens to alert_routes: read, write (create, update), manage (delete, clone)', async () => {
      const readToken = await mintToken(t, owner.jwt, ['alert_routes:read']);
      const writeToken = await mintToken(t, owner.jwt, ['alert_routes:write']);
      const manageToken = await mintToken(t, owner.jwt, ['alert_routes:manage']);
      const alertsToken = await mintToken(t, owner.jwt, ['alerts:*']);
      const withToken = (token: string) => routes(projectId, token);

      await withToken(readToken).list();
      await withToken(readToken).preview({ labels: {}, severity: 'info' });
      expectError(
        await withToken(readToken).raw.create({ priority: 110 }),
        403,
        'insufficient_scope',
      );

      const id = (await withToken(writeToken).create({ priority: 110 })).id;
      await withToken(writeToken).update(id, { name: 'by token' });
      expectError(await withToken(writeToken).raw.delete(id), 403, 'insufficient_scope');
      expectError(await withToken(writeToken).raw.clone(id, {}), 403, 'insufficient_scope');

      const { raw } = withToken(alertsToken);
      for (const res of [
        await raw.list(),
        await raw.show(id),
        await raw.create({ priority: 110 }),
        await raw.update(id, { name: 'x' }),
        await raw.delete(id),
        await raw.preview({ labels: {}, severity: 'info' }),
      ])
        expectError(res, 403, 'insufficient_scope');

      await withToken(manageToken).clone(id);
      await withToken(manageToken).delete(id);
    });

    it('answers 403 alerts_capability_not_enabled on every route of a project without the grant', async () => {
      const { raw } = routes(bareProjectId);
      const id = MISSING;
      const attempts = [
        raw.list(),
        raw.create({ priority: 1 }),
        raw.preview({ labels: {}, severity: 'info' }),
        raw.show(id),
        raw.update(id, { name: 'x' }),
        raw.delete(id),
        raw.clone(id, {}),
      ];
      for (const attempt of attempts)
        expectError(await attempt, 403, 'alerts_capability_not_enabled');
      expect(await routeCount(bareProjectId)).toBe(0);
    });
  });
});
