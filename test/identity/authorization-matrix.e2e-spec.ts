import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import {
  type AccessPolicy,
  CATEGORIES,
  type DeclaredRoute,
  declaredRoutes,
} from '@platform/identity';
import { FakeOpenStack, type SmtpSink } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import {
  createApiTestApp,
  createMailingApiTestApp,
  type MailingTestApp,
} from '../support/api-app.js';
import {
  addMember,
  bearer,
  createAccount,
  mintToken,
  type TestAccount,
} from '../support/identity.js';
import { grantAlerts } from '../support/alerting.js';

const METHODS: Record<number, 'get' | 'post' | 'put' | 'delete' | 'patch'> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.PATCH]: 'patch',
};

/**
 * Enumerates every route the API registers. Each non-public route must answer 401 without
 * credentials, and each organization- or project-scoped route must answer 404 to valid
 * credentials of another organization aimed at this organization's resources.
 */
describe('authorization matrix', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let cloud: FakeOpenStack;
  let routes: DeclaredRoute[];
  let owner: TestAccount;
  let stranger: TestAccount;
  let strangerToken: string;
  const ids: Record<string, string> = {};
  /** Query strings a GET needs to be answered 200 (required parameters). */
  const queries: Record<string, string> = {};

  beforeAll(async () => {
    cloud = await FakeOpenStack.start();
    t = await createMailingApiTestApp({ config: { openstack: cloud.config() } });
    sink = t.sink;
    routes = declaredRoutes(t.get(DiscoveryService), t.get(MetadataScanner), t.get(Reflector));

    owner = await createAccount(t, sink, 'owner@example.com', 'Owner Org');
    const member = await addMember(t, sink, owner, 'member@example.com', 'developer');
    stranger = await createAccount(t, sink, 'stranger@example.com', 'Stranger Org');
    strangerToken = await mintToken(
      t,
      stranger.jwt,
      CATEGORIES.map((c) => `${c}:*`),
    );

    const project = await t
      .request()
      .post(`/organizations/${owner.organizationId}/projects`)
      .set(bearer(owner.jwt))
      .send({ name: 'owned' })
      .expect(201);
    await mintToken(t, member.jwt, ['projects:read']);
    const tokens = await t.request().get('/tokens').set(bearer(owner.jwt)).expect(200);
    const memberships = await t.request().get('/memberships').set(bearer(owner.jwt)).expect(200);
    ids.org_id = owner.organizationId;
    ids.project_id = project.body.data.id as string;
    ids['/organizations/:org_id/projects/:id'] = ids.project_id;
    ids['/memberships/:id'] = (
      memberships.body.data as Array<{ id: string; account_id: string }>
    ).find((m) => m.account_id === member.accountId)!.id;
    ids['/tokens/:id'] = (tokens.body.data as Array<{ token_id: string }>)[0].token_id;
    ids.feature_key = 'apps';
    const featureRequest = await t
      .request()
      .post(`/projects/${ids.project_id}/feature_requests`)
      .set(bearer(member.jwt))
      .send({ feature_key: 'alerts' })
      .expect(201);
    ids['/projects/:project_id/feature_requests/:id'] = featureRequest.body.data.id as string;
    await alertingFixtures(project.body.data.id as string);
    const webhook = await t
      .request()
      .post(`/webhooks?organization_id=${owner.organizationId}`)
      .set(bearer(owner.jwt))
      .send({ webhook: { name: 'registry', url: 'https://hooks.example.com/registry' } })
      .expect(201);
    for (const path of ['', '/deliveries', '/receipts', '/receive'])
      ids[`/webhooks/:id${path}`] = webhook.body.data.id as string;
  });

  afterAll(async () => {
    await t.close();
    await cloud.close();
  });

  /** One of each alerting resource in the owner's project, which gets the alerts capability. */
  async function alertingFixtures(projectId: string): Promise<void> {
    await grantAlerts(t, owner, projectId);
    const base = `/projects/${projectId}`;
    const post = (path: string, body: object) =>
      t.request().post(`${base}${path}`).set(bearer(owner.jwt)).send(body).expect(201);
    await t
      .request()
      .post(`${base}/alerts`)
      .set(bearer(owner.jwt))
      .send({
        version: '4',
        status: 'firing',
        alerts: [
          {
            status: 'firing',
            fingerprint: 'matrix-1',
            labels: { alertname: 'Matrix', severity: 'warning' },
            startsAt: '2026-01-01T00:00:00Z',
          },
        ],
      })
      .expect(200);
    const alerts = await t.request().get(`${base}/alerts`).set(bearer(owner.jwt)).expect(200);
    ids.alert_id = (alerts.body.data as Array<{ id: string }>)[0].id;
    ids['/projects/:project_id/alerts/:id'] = ids.alert_id;
    const window = await post('/maintenance_windows', {
      name: 'upgrade',
      starts_at: '2030-01-01T00:00:00Z',
      ends_at: '2030-01-01T02:00:00Z',
    });
    ids['/projects/:project_id/maintenance_windows/:id'] = window.body.data.id as string;
    const endpoint = await post('/notification_endpoints', {
      name: 'hook',
      url: 'https://hooks.example.com/alerts',
    });
    for (const path of ['', '/deliveries'])
      ids[`/projects/:project_id/notification_endpoints/:id${path}`] = endpoint.body.data
        .id as string;
    const heartbeat = await post('/heartbeats', { name: 'watchdog', interval_seconds: 60 });
    for (const path of ['', '/rotate_ping_url'])
      ids[`/projects/:project_id/heartbeats/:id${path}`] = heartbeat.body.data.id as string;
    const route = await post('/alert_routes', { name: 'all', priority: 1 });
    for (const path of ['', '/clone'])
      ids[`/projects/:project_id/alert_routes/:id${path}`] = route.body.data.id as string;

    const roster = (await post('/on_call_rosters', { name: 'primary' })).body.data.id as string;
    const rosterPath = `/on_call_rosters/${roster}`;
    ids.member_id = (
      await post(`${rosterPath}/on_call_roster_members`, { account_id: owner.accountId })
    ).body.data.id as string;
    ids.contact_id = (
      await post(`${rosterPath}/on_call_roster_phone_contacts`, {
        label: 'NOC',
        phone_number: '+15550001000',
      })
    ).body.data.id as string;
    await t
      .request()
      .put(`${base}${rosterPath}/rotation`)
      .set(bearer(owner.jwt))
      .send({
        time_zone: 'UTC',
        start_date: '2030-01-01',
        handoff_time: '09:00',
        shift_length: 'daily',
      })
      .expect(200);
    ids.override_id = (
      await post(`${rosterPath}/on_call_overrides`, {
        account_id: owner.accountId,
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-02T00:00:00Z',
      })
    ).body.data.id as string;
    for (const path of [
      '',
      '/shifts',
      '/on_call_roster_members',
      '/on_call_roster_members/:member_id',
      '/on_call_roster_phone_contacts',
      '/on_call_roster_phone_contacts/:contact_id',
      '/rotation',
      '/on_call_overrides',
      '/on_call_overrides/:override_id',
      '/calendar_feed',
    ])
      ids[`/projects/:project_id/on_call_rosters/:id${path}`] = roster;
    queries['/projects/:project_id/on_call_rosters/:id/shifts'] =
      '?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z';
    // The widest window; seed_presets needs no fixture (any project id serves the 401/404 checks).
    queries['/projects/:project_id/alerts/insights'] = '?days=90';

    const chain = (await post('/escalation_chains', { name: 'matrix' })).body.data.id as string;
    ids.step_id = (
      await post(`/escalation_chains/${chain}/escalation_steps`, {
        target_type: 'org_admins',
        channels: ['in_app'],
      })
    ).body.data.id as string;
    for (const path of [
      '',
      '/clone',
      '/resolved_targets',
      '/escalation_steps',
      '/escalation_steps/:step_id',
    ])
      ids[`/projects/:project_id/escalation_chains/:id${path}`] = chain;
  }

  /** The route's path with the owner organization's real ids filled in. */
  function concrete(path: string): string {
    return path.replace(/:(\w+)/g, (_match, name: string) => {
      if (name === 'id') return ids[path] ?? randomUUID();
      return ids[name] ?? 'x';
    });
  }

  function call(route: DeclaredRoute, path: string, query = '') {
    const method = METHODS[route.method];
    if (!method) throw new Error(`unexpected method ${route.method} on ${path}`);
    return t.request()[method](`${path}${query}`).send({});
  }

  const scoped = (route: DeclaredRoute) => {
    const policy = route.policy as AccessPolicy | undefined;
    return policy && policy.scope !== 'account' ? policy : undefined;
  };

  /** The query that names the tenant of a route whose path does not (`project_id` or `organization_id`). */
  function tenantQuery(route: DeclaredRoute, path: string): string {
    if (scoped(route)?.projectIn === 'query') return `?project_id=${ids.project_id}`;
    return path.includes(':org_id') || path.includes(':project_id')
      ? ''
      : `?organization_id=${owner.organizationId}`;
  }

  /**
   * Item routes whose items live in a cloud provider, not in our tables: the matrix has no
   * fixture upstream for them (their tenancy is tested per area, against the provider's fake),
   * so the owner's request for a random id answers 404 from upstream.
   */
  const upstreamItem = (route: DeclaredRoute, path: string) =>
    /:(id|zone_id|port_id|rule_id|name|type)\b/.test(path) &&
    (scoped(route)?.projectIn === 'query' || path.includes('/vpn_gateways'));

  it('finds the routes of every module, each with an access declaration', () => {
    expect(routes.length).toBeGreaterThan(25);
    for (const route of routes) {
      expect({
        route: `${route.controller}.${route.handler}`,
        declared: route.isPublic || Boolean(route.policy),
      }).toEqual({
        route: `${route.controller}.${route.handler}`,
        declared: true,
      });
    }
    const paths = routes.flatMap((r) => r.paths);
    for (const known of [
      '/tokens',
      '/memberships/:id',
      '/projects/:project_id',
      '/accounts/me',
      '/login',
    ]) {
      expect(paths).toContain(known);
    }
  });

  it('answers 401 without credentials on every non-public route', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => !r.isPublic)) {
      for (const path of route.paths) {
        const res = await call(route, concrete(path));
        if (res.status !== 401 || res.body.code !== 'unauthorized')
          failures.push(`${route.method} ${path}: ${res.status} ${res.body.code}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("answers 404 to another organization's session aimed at this organization's resources", async () => {
    const failures: string[] = [];
    for (const route of routes.filter(scoped)) {
      for (const path of route.paths) {
        const res = await call(route, concrete(path), tenantQuery(route, path)).set(
          bearer(stranger.jwt),
        );
        // Platform-admin routes refuse everyone else before looking at the tenant.
        const expected = scoped(route)!.platformAdmin ? [403, 'forbidden'] : [404, 'not_found'];
        if (res.status !== expected[0] || res.body.code !== expected[1])
          failures.push(`${route.method} ${path}: ${res.status} ${res.body.code}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("answers 404 (or 403 where only sessions may act) to another organization's static token", async () => {
    const failures: string[] = [];
    for (const route of routes.filter(scoped)) {
      const policy = scoped(route)!;
      for (const path of route.paths) {
        const res = await call(route, concrete(path), tenantQuery(route, path)).set(
          bearer(strangerToken),
        );
        const expected = policy.interactiveOnly
          ? [403, 'interactive_session_required']
          : policy.platformAdmin
            ? [403, 'forbidden']
            : [404, 'not_found'];
        if (res.status !== expected[0] || res.body.code !== expected[1])
          failures.push(`${route.method} ${path}: ${res.status} ${res.body.code}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('serves the same GET requests to the owner, so the 404s above are about tenancy', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => scoped(r) && r.method === RequestMethod.GET)) {
      for (const path of route.paths.filter((p) => !upstreamItem(route, p))) {
        const query =
          queries[path] ??
          (scoped(route)?.projectIn === 'query' ? tenantQuery(route, path) : undefined);
        const res = await call(route, concrete(path), query).set(bearer(owner.jwt));
        // Past the access checks, a provider the matrix does not stand up (the garden, the
        // apps cluster, RGW) answers its own 503: the owner got through, the stranger did not.
        const unconfigured = res.status === 503 && res.body.code === 'provider_not_configured';
        if (res.status !== 200 && !unconfigured)
          failures.push(`GET ${path}: ${res.status} ${res.body.code}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses to start an application with a route that declares no access', async () => {
    @Controller('undeclared')
    class UndeclaredController {
      @Get()
      open(): string {
        return 'open';
      }
    }
    await expect(createApiTestApp({ controllers: [UndeclaredController] })).rejects.toThrow(
      'Routes without an access declaration (@Public or @Authenticated): UndeclaredController.open',
    );
  });
});
