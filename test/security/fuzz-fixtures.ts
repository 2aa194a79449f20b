import { SCOPE_RESOURCES } from '@platform/identity';
import type { MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { addMember, bearer, createAccount, login, mintToken } from '../support/identity.js';
import type { Json } from './fuzz-values.js';

export const PLATFORM_ADMIN = {
  login: 'root@platform.example',
  password: 'platform admin password 1',
};

/** The credentials and real ids the fuzz calls operations with. */
export interface FuzzFixtures {
  /** the organization admin's login session */
  ownerJwt: string;
  /** a static token of the organization admin with every scope */
  token: string;
  adminJwt: string;
  /** Path parameter values by name; `{id}` by the collection segment in front of it. */
  params: Record<string, string>;
  ids: Record<string, string>;
  /** Values for body properties of these names, so well-formed bodies name real things. */
  named: Record<string, Json>;
}

/**
 * An organization with an admin and a developer, a static token with every scope, a project
 * with the alerts capability and one of each resource kind that is cheap to make.
 */
export async function createFuzzFixtures(t: MailingTestApp): Promise<FuzzFixtures> {
  const owner = await createAccount(t, t.sink, 'owner@example.com', 'Fuzz Org');
  await addMember(t, t.sink, owner, 'member@example.com', 'developer');
  const token = await mintToken(
    t,
    owner.jwt,
    SCOPE_RESOURCES.map((resource) => `${resource}:*`),
  );
  const adminJwt = await login(t, PLATFORM_ADMIN.login, PLATFORM_ADMIN.password);
  const projectId = await alertsProject(t, owner, 'fuzzed');
  const as = (jwt: string) => bearer(jwt);
  const post = async (path: string, body: object, jwt = owner.jwt) =>
    (await t.request().post(path).set(as(jwt)).send(body).expect(201)).body.data.id as string;
  const base = `/projects/${projectId}`;

  await t
    .request()
    .post(`${base}/alerts`)
    .set(as(owner.jwt))
    .send(ingestPayload('fuzz-fixture') as object)
    .expect(200);
  const alerts = await t.request().get(`${base}/alerts`).set(as(owner.jwt)).expect(200);
  const alertId = (alerts.body.data as Array<{ id: string }>)[0].id;
  const memberships = await t.request().get('/memberships').set(as(owner.jwt)).expect(200);
  const membershipId = (memberships.body.data as Array<{ id: string; account_id: string }>).find(
    (m) => m.account_id !== owner.accountId,
  )!.id;
  const roster = await post(`${base}/on_call_rosters`, { name: 'primary' });
  const rosterPath = `${base}/on_call_rosters/${roster}`;
  const chain = await post(`${base}/escalation_chains`, { name: 'fuzz chain' });
  const endpoint = await post(`${base}/notification_endpoints`, {
    name: 'hook',
    url: 'https://hooks.example.com/alerts',
    enabled: false,
  });
  const route = await post(`${base}/alert_routes`, { name: 'all', priority: 1 });
  const heartbeat = (
    await t
      .request()
      .post(`${base}/heartbeats`)
      .set(as(owner.jwt))
      .send({ name: 'fuzz watchdog', interval_seconds: 60 })
      .expect(201)
  ).body.data as { id: string; ping_url: string };
  const calendarFeed = (
    await t.request().post(`${rosterPath}/calendar_feed`).set(as(owner.jwt)).expect(201)
  ).body.data as { url: string };
  await t
    .request()
    .put(`${rosterPath}/rotation`)
    .set(as(owner.jwt))
    .send({
      time_zone: 'UTC',
      start_date: '2030-01-01',
      handoff_time: '09:00',
      shift_length: 'daily',
    })
    .expect(200);

  return {
    ownerJwt: owner.jwt,
    token,
    adminJwt,
    params: {
      org_id: owner.organizationId,
      project_id: projectId,
      alert_id: alertId,
      member_id: await post(`${rosterPath}/on_call_roster_members`, {
        account_id: owner.accountId,
      }),
      contact_id: await post(`${rosterPath}/on_call_roster_phone_contacts`, {
        label: 'NOC',
        phone_number: '+15550001000',
      }),
      override_id: await post(`${rosterPath}/on_call_overrides`, {
        account_id: owner.accountId,
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-02T00:00:00Z',
      }),
      step_id: await post(`${base}/escalation_chains/${chain}/escalation_steps`, {
        target_type: 'org_admins',
        channels: ['in_app'],
      }),
      // Not `alerts`: a fuzzed Limit or Grant of dns leaves the alerting routes reachable.
      feature_key: 'dns',
      doc_type: 'agb',
      token: 'not-an-invitation-token',
      signed_id: 'not-a-signed-token',
      ping_key: heartbeat.ping_url.split('/').pop()!,
      feed_key: calendarFeed.url.split('/').pop()!,
    },
    ids: {
      projects: projectId,
      memberships: membershipId,
      alerts: alertId,
      on_call_rosters: roster,
      escalation_chains: chain,
      notification_endpoints: endpoint,
      alert_routes: route,
      heartbeats: heartbeat.id,
      maintenance_windows: await post(`${base}/maintenance_windows`, {
        name: 'upgrade',
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-01T02:00:00Z',
      }),
      silences: await post(`${base}/alerts/${alertId}/silences`, {
        ends_at: '2030-01-01T00:00:00Z',
        comment: 'fuzz',
      }),
      feature_requests: await post(`${base}/feature_requests`, { feature_key: 'dns' }),
      notification_absences: await post('/notification_absences', {
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-02T00:00:00Z',
      }),
      broadcasts: await post(
        '/admin/broadcasts',
        { title: 'fuzz', body: 'fuzz', severity: 'info', banner: true },
        adminJwt,
      ),
      platform_incidents: await post(
        '/admin/platform_incidents',
        { title: 'fuzz', body: 'fuzz', severity: 'info', affected_features: ['dns'] },
        adminJwt,
      ),
    },
    named: {
      account_id: owner.accountId,
      roster_id: roster,
      escalation_chain_id: chain,
      route_id: route,
      notification_endpoint_ids: [endpoint],
      organization_id: owner.organizationId,
      project_id: projectId,
      feature_key: 'dns',
      allowed_kinds: ['zone'],
      category_key: 'capability_update',
      email: 'invitee@example.com',
      login: 'nobody@example.com',
      position: 0,
      starts_at: '2030-01-01T00:00:00Z',
      ends_at: '2030-01-02T00:00:00Z',
      url: 'https://hooks.example.com/fuzz',
    },
  };
}

/** An Alertmanager v4 webhook with one firing alert. */
export function ingestPayload(fingerprint: string): Json {
  return {
    version: '4',
    status: 'firing',
    receiver: 'platform',
    groupKey: '{}:{}',
    alerts: [
      {
        status: 'firing',
        fingerprint,
        labels: { alertname: 'Fuzz', severity: 'warning', instance: 'db-1' },
        annotations: { summary: 'fuzzed' },
        startsAt: '2026-01-01T00:00:00Z',
        endsAt: '0001-01-01T00:00:00Z',
      },
    ],
  };
}
