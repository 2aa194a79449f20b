import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FanOutProcessor } from '@platform/notifications';
import { JobQueue, QueueName } from '@platform/queue';
import { eventually } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { createProject } from '../support/alerting.js';
import { bearer, createAccount, login, type TestAccount } from '../support/identity.js';

interface NotificationView {
  category: string;
  event_type: string;
  organization_id: string | null;
  payload: Record<string, unknown>;
}

const ADMIN = { login: 'root@incidents.example', password: 'platform admin password 1' };

describe('platform incidents', () => {
  let t: MailingTestApp;
  let adminJwt: string;
  /** dns Available in a project of their organization. */
  let ada: TestAccount;
  /** No project has dns. */
  let bo: TestAccount;
  /** dns granted, but the organization's Limit allows no dns kind: not Available. */
  let cy: TestAccount;

  async function grantDns(who: TestAccount): Promise<void> {
    const projectId = await createProject(t, who, 'web');
    await t
      .request()
      .put(`/organizations/${who.organizationId}/projects/${projectId}/feature-grants/dns`)
      .set(bearer(who.jwt))
      .send({ approved_configuration: { allowed_kinds: null } })
      .expect(200);
  }

  beforeAll(async () => {
    t = await createMailingApiTestApp({ config: { platformAdmin: ADMIN } });
    adminJwt = await login(t, ADMIN.login, ADMIN.password);
    ada = await createAccount(t, t.sink, 'ada@incidents.example');
    bo = await createAccount(t, t.sink, 'bo@incidents.example');
    cy = await createAccount(t, t.sink, 'cy@incidents.example');
    await grantDns(ada);
    await grantDns(cy);
    await t
      .request()
      .put(`/admin/organizations/${cy.organizationId}/features/dns`)
      .set(bearer(adminJwt))
      .send({ ceiling_configuration: { allowed_kinds: [] } })
      .expect(200);
  });

  afterAll(async () => {
    await t.close();
  });

  const incidentNotices = async (who: { jwt: string }): Promise<NotificationView[]> => {
    const res = await t.request().get('/notifications?limit=100').set(bearer(who.jwt)).expect(200);
    return (res.body.data as NotificationView[]).filter((n) => n.category === 'platform_incident');
  };

  /** Waits until every shard of the subject's fan-outs has nobody left. */
  const fannedOut = (subjectId: string) =>
    eventually(async () => {
      const rows: Array<{ pending: number; total: number }> = await t.get(DataSource).query(
        `SELECT count(*) FILTER (WHERE done_at IS NULL)::int AS pending, count(*)::int AS total
               FROM notification_fanout WHERE subject_id = $1`,
        [subjectId],
      );
      return rows[0].total > 0 && rows[0].pending === 0;
    }, `the fan-out of ${subjectId} to finish`);

  const openIncident = (body: Record<string, unknown>, jwt = adminJwt) =>
    t.request().post('/admin/platform_incidents').set(bearer(jwt)).send(body);

  const banners = async (who: { jwt: string }) =>
    (await t.request().get('/broadcasts/active').set(bearer(who.jwt)).expect(200)).body
      .data as Array<{
      id: string;
    }>;

  it('refuses non-admins, unknown severities and unknown feature keys', async () => {
    const valid = { title: 'DNS outage', body: 'Zones do not resolve', severity: 'critical' };
    expect((await openIncident(valid, ada.jwt).expect(403)).body.code).toBe('forbidden');
    const severity = await openIncident({ ...valid, severity: 'loud' }).expect(422);
    expect(severity.body.code).toBe('validation_failed');
    const unknown = await openIncident({ ...valid, affected_features: ['teleport'] }).expect(422);
    expect(unknown.body).toMatchObject({
      code: 'validation_failed',
      details: { fields: [{ field: 'affected_features' }] },
    });
    await openIncident({ ...valid, affected_features: [] }).expect(422);
    await t
      .request()
      .patch('/admin/platform_incidents/00000000-0000-4000-8000-000000000000')
      .set(bearer(adminJwt))
      .send({ resolved: true })
      .expect(404);
  });

  it('notifies the members of organizations with an affected feature Available, then the resolution', async () => {
    t.clock.set('2026-11-26T09:00:00Z');
    const res = await openIncident({
      title: 'DNS outage',
      body: 'Zones do not resolve',
      severity: 'critical',
      affected_features: ['dns'],
    }).expect(201);
    const incident = res.body.data;
    expect(incident).toEqual({
      id: expect.any(String),
      title: 'DNS outage',
      body: 'Zones do not resolve',
      severity: 'critical',
      affected_features: ['dns'],
      status: 'open',
      opened_at: '2026-11-26T09:00:00.000Z',
      resolved_at: null,
      updated_at: '2026-11-26T09:00:00.000Z',
    });
    await fannedOut(incident.id);
    const payload = {
      incident_id: incident.id,
      title: 'DNS outage',
      body: 'Zones do not resolve',
      severity: 'critical',
      affected_features: ['dns'],
      status: 'open',
      opened_at: '2026-11-26T09:00:00.000Z',
      resolved_at: null,
      link: `${t.config.publicUrl}/broadcasts/active`,
    };
    expect(await incidentNotices(ada)).toEqual([
      expect.objectContaining({ event_type: 'opened', organization_id: null, payload }),
    ]);
    expect(await incidentNotices(bo)).toEqual([]);
    expect(await incidentNotices(cy)).toEqual([]);
    await t.sink.waitFor(
      (m) => m.to.includes(ada.login) && m.subject === 'Platform incident: DNS outage',
    );

    // A banner while open, for those it concerns.
    expect((await banners(ada)).map((b) => b.id)).toContain(incident.id);
    expect((await banners(bo)).map((b) => b.id)).not.toContain(incident.id);

    const listed = await t.request().get('/admin/platform_incidents').set(bearer(adminJwt));
    expect(listed.body.data.map((i: { id: string }) => i.id)).toContain(incident.id);

    t.clock.set('2026-11-26T10:30:00Z');
    const resolved = await t
      .request()
      .patch(`/admin/platform_incidents/${incident.id}`)
      .set(bearer(adminJwt))
      .send({ resolved: true, body: 'Zones resolve again' })
      .expect(200);
    expect(resolved.body.data).toMatchObject({
      status: 'resolved',
      resolved_at: '2026-11-26T10:30:00.000Z',
      body: 'Zones resolve again',
    });
    // Resolving again changes nothing and announces nothing.
    await t
      .request()
      .patch(`/admin/platform_incidents/${incident.id}`)
      .set(bearer(adminJwt))
      .send({ resolved: true })
      .expect(200);
    await fannedOut(incident.id);
    const notices = await incidentNotices(ada);
    expect(notices.map((n) => n.event_type)).toEqual(['resolved', 'opened']);
    expect(notices[0].payload).toEqual({
      ...payload,
      body: 'Zones resolve again',
      status: 'resolved',
      resolved_at: '2026-11-26T10:30:00.000Z',
    });
    expect((await banners(ada)).map((b) => b.id)).not.toContain(incident.id);
    const item = await t
      .request()
      .get(`/admin/platform_incidents/${incident.id}`)
      .set(bearer(adminJwt))
      .expect(200);
    expect(item.body.data.status).toBe('resolved');
  });

  it('resumes a fan-out whose jobs were lost, from the cursor, notifying each account once', async () => {
    const processor = t.get(FanOutProcessor);
    const queue = t.get(JobQueue).queue(QueueName.FanOuts);
    processor.pageSize = 1;
    await queue.pause();
    try {
      const res = await openIncident({
        title: 'Everything is slow',
        body: 'We are on it',
        severity: 'notice',
      }).expect(201);
      const incidentId = res.body.data.id as string;
      // One page runs, then Redis loses every queued job.
      const shards: Array<{ id: string }> = await t
        .get(DataSource)
        .query(`SELECT id FROM notification_fanout WHERE subject_id = $1 ORDER BY shard`, [
          incidentId,
        ]);
      let first = 0;
      for (const shard of shards) {
        first = await processor.page({ shardId: shard.id, after: null });
        if (first > 0) {
          // The same page again is stale: its cursor moved on.
          expect(await processor.page({ shardId: shard.id, after: null })).toBe(0);
          break;
        }
      }
      expect(first).toBe(1);
      await queue.obliterate({ force: true });
      await queue.resume();
      await processor.sweep();
      await fannedOut(incidentId);
      for (const who of [ada, bo, cy, { jwt: adminJwt }]) {
        const notices = (await incidentNotices(who)).filter(
          (n) => n.payload.incident_id === incidentId,
        );
        expect(notices.map((n) => n.event_type)).toEqual(['opened']);
      }
    } finally {
      processor.pageSize = 2000;
      await queue.resume();
    }
  });

  it('gives every account one broadcast notification per published broadcast, in-app only', async () => {
    t.clock.set('2026-11-26T12:00:00Z');
    const res = await t
      .request()
      .post('/admin/broadcasts')
      .set(bearer(adminJwt))
      .send({ title: 'Maintenance', body: 'Sunday 02:00 UTC', severity: 'notice', banner: false })
      .expect(201);
    const broadcastId = res.body.data.id as string;
    await fannedOut(broadcastId);
    for (const who of [ada, bo, cy, { jwt: adminJwt }]) {
      const all = await t.request().get('/notifications?limit=100').set(bearer(who.jwt));
      const notices = (all.body.data as NotificationView[]).filter(
        (n) => n.category === 'broadcast',
      );
      expect(notices).toEqual([
        expect.objectContaining({
          event_type: 'published',
          organization_id: null,
          payload: {
            broadcast_id: broadcastId,
            title: 'Maintenance',
            body: 'Sunday 02:00 UTC',
            severity: 'notice',
            published_at: '2026-11-26T12:00:00.000Z',
          },
        }),
      ]);
    }
    // The category's only channel is in-app, and nobody can turn it off.
    expect(t.sink.messages.filter((m) => m.subject === 'Maintenance')).toEqual([]);
    const refused = await t
      .request()
      .patch('/notification_preferences')
      .set(bearer(ada.jwt))
      .send({ preferences: [{ category_key: 'broadcast', channel: 'in_app', enabled: false }] })
      .expect(422);
    expect(refused.body.code).toBe('unprocessable_entity');
  });
});
