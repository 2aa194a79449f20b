import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { JobName, JobQueue } from '@platform/queue';
import {
  ALERT_BUNDLE_FLUSH_SCHEDULER_ID,
  AlertBundleFlusher,
} from '../../libs/alerting/src/dispatch/alert-bundle-flusher.js';
import { AlertDispatchProcessor } from '../../libs/alerting/src/dispatch/alert-dispatch.processor.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { expectError } from '../support/clients/expect-error.js';
import { bearer, createAccount, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;

/** Long, so the scheduled flush stays out of the way of the flushes the tests run themselves. */
const SWEEP_MS = 600_000;

describe('storm control (bundle_window_seconds)', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let owner: TestAccount;
  let sequence = 0;

  const api = (method: 'get' | 'post' | 'patch', path: string) =>
    t.request()[method](path).set(bearer(owner.jwt));
  const createRoute = async (project: string, body: Body) =>
    (await api('post', `/projects/${project}/alert_routes`).send(body).expect(201)).body
      .data as Body & { id: string };
  /** An alert as ingest leaves it: firing, with its `fired` timeline event. */
  const insertAlert = async (project: string, name = `Alert${sequence + 1}`): Promise<string> => {
    sequence += 1;
    const now = t.clock.now();
    const [{ id }] = await db.query<Array<{ id: string }>>(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations,
                          starts_at, last_received_at, created_at, updated_at)
       VALUES ($1, $2, 'firing', 'critical', $3, $4, $5, $5, $5, $5) RETURNING id`,
      [
        project,
        `storm-${sequence}`,
        JSON.stringify({ alertname: name, severity: 'critical' }),
        JSON.stringify({ summary: `${name} is down` }),
        now,
      ],
    );
    await db.query(
      `INSERT INTO alert_event (alert_id, project_id, kind, created_at) VALUES ($1, $2, 'fired', $3)`,
      [id, project, now],
    );
    return id;
  };
  const resolveAlert = async (project: string, id: string) => {
    await db.query(`UPDATE alert SET status = 'resolved', ends_at = $2 WHERE id = $1`, [
      id,
      t.clock.now(),
    ]);
    await db.query(
      `INSERT INTO alert_event (alert_id, project_id, kind, created_at) VALUES ($1, $2, 'resolved', $3)`,
      [id, project, t.clock.now()],
    );
  };
  const fire = async (project: string, ...ids: string[]) =>
    t.get(AlertDispatchProcessor).dispatch({ projectId: project, fired: ids, resolved: [] });
  const resolve = async (project: string, ...ids: string[]) =>
    t.get(AlertDispatchProcessor).dispatch({ projectId: project, fired: [], resolved: ids });
  const flush = () => t.get(AlertBundleFlusher).flush();
  /** The owner's in-app alert notifications of the project, oldest first. */
  const notifications = async (project: string) =>
    db.query<Array<{ event_type: string; payload: Body }>>(
      `SELECT event_type, payload FROM notification
        WHERE account_id = $1 AND category_key = 'alert_escalation' AND payload ->> 'project_id' = $2
        ORDER BY created_at, id`,
      [owner.accountId, project],
    );
  /** The route's bundles, oldest first, each with its members (sorted by id). */
  const bundlesOf = (routeId: string) =>
    db.query<Array<{ kind: string; lead_alert_id: string; members: string[]; flushed: boolean }>>(
      `SELECT b.kind, b.lead_alert_id, b.flushed_at IS NOT NULL AS flushed,
              COALESCE(array_agg(m.alert_id::text ORDER BY m.alert_id)
                         FILTER (WHERE m.alert_id IS NOT NULL), '{}') AS members
         FROM alert_bundle b LEFT JOIN alert_bundle_member m ON m.bundle_id = b.id
        WHERE b.route_id = $1 GROUP BY b.id ORDER BY b.opened_at, b.kind`,
      [routeId],
    );

  beforeAll(async () => {
    t = await createMailingApiTestApp({ config: { escalationSweepIntervalMs: SWEEP_MS } });
    t.clock.set('2026-06-01T08:00:00Z');
    db = t.get(DataSource);
    owner = await createAccount(t, t.sink, 'storm-owner@example.com', 'Storm Org');
  });

  afterAll(async () => {
    await t.close();
  });

  it('schedules the flush of closed bundles as a repeatable job', async () => {
    const jobs = t.get(JobQueue);
    const scheduler = await jobs
      .queue(jobs.queueOf(JobName.AlertBundleFlush))
      .getJobScheduler(ALERT_BUNDLE_FLUSH_SCHEDULER_ID);
    expect(scheduler).toMatchObject({ name: JobName.AlertBundleFlush, every: SWEEP_MS });
  });

  describe('the route field', () => {
    it('defaults to 0 and is shown, set and changed through create, PATCH, show and list', async () => {
      const project = await alertsProject(t, owner, 'field');
      const plain = await createRoute(project, { priority: 1 });
      expect(plain.bundle_window_seconds).toBe(0);
      const bundled = await createRoute(project, { priority: 2, bundle_window_seconds: 30 });
      expect(bundled.bundle_window_seconds).toBe(30);
      const patched = await api('patch', `/projects/${project}/alert_routes/${bundled.id}`)
        .send({ bundle_window_seconds: 3600 })
        .expect(200);
      expect(patched.body.data.bundle_window_seconds).toBe(3600);
      // PATCH without the field leaves it.
      await api('patch', `/projects/${project}/alert_routes/${bundled.id}`)
        .send({ name: 'renamed' })
        .expect(200);
      const shown = await api('get', `/projects/${project}/alert_routes/${bundled.id}`).expect(200);
      expect(shown.body.data).toMatchObject({ name: 'renamed', bundle_window_seconds: 3600 });
      const listed = await api('get', `/projects/${project}/alert_routes`).expect(200);
      expect((listed.body.data as Body[]).map((r) => [r.id, r.bundle_window_seconds])).toEqual([
        [plain.id, 0],
        [bundled.id, 3600],
      ]);
    });

    it.each([[-1], [3601], [1.5], ['30'], [null]])(
      'refuses %p with 422 validation_failed naming the field',
      async (value) => {
        const project = await alertsProject(t, owner, `invalid ${String(value)}`);
        const created = await api('post', `/projects/${project}/alert_routes`).send({
          priority: 1,
          bundle_window_seconds: value,
        });
        expectError(created, 422, 'validation_failed', ['bundle_window_seconds']);
        const route = await createRoute(project, { priority: 1 });
        const patched = await api('patch', `/projects/${project}/alert_routes/${route.id}`).send({
          bundle_window_seconds: value,
        });
        expectError(patched, 422, 'validation_failed', ['bundle_window_seconds']);
      },
    );

    it('is documented in the route schemas of the OpenAPI document', async () => {
      const doc = (await t.request().get('/openapi.json').expect(200)).body as {
        components: { schemas: Record<string, { properties: Record<string, Body> }> };
      };
      const documented = Object.entries(doc.components.schemas).filter(
        ([, schema]) => schema.properties?.bundle_window_seconds,
      );
      expect(documented.map(([name]) => name).sort()).toEqual([
        'AlertRouteResponseDto',
        'CreateAlertRouteBody',
        'UpdateAlertRouteBody',
      ]);
      for (const [, schema] of documented)
        expect(schema.properties.bundle_window_seconds).toMatchObject({
          type: 'integer',
          minimum: 0,
          maximum: 3600,
          description: expect.stringContaining('storm control'),
        });
    });

    it('gives the routes seed_presets creates a 30 s window', async () => {
      const project = await alertsProject(t, owner, 'presets');
      await api('post', `/projects/${project}/alerts/seed_presets`).expect(201);
      const listed = await api('get', `/projects/${project}/alert_routes`).expect(200);
      const windows = (listed.body.data as Body[]).map((r) => r.bundle_window_seconds);
      expect(windows.length).toBeGreaterThan(0);
      expect(new Set(windows)).toEqual(new Set([30]));
    });
  });

  describe('bundling', () => {
    it('notifies every alert on its own with the window at 0, and opens no bundle', async () => {
      const project = await alertsProject(t, owner, 'off');
      const route = await createRoute(project, { name: 'off', priority: 1 });
      const a = await insertAlert(project);
      const b = await insertAlert(project);
      await fire(project, a, b);
      t.clock.advance({ seconds: 5 });
      const c = await insertAlert(project);
      await fire(project, c);
      await flush();
      const sent = await notifications(project);
      expect(sent.map((n) => n.event_type)).toEqual([
        'alert_firing',
        'alert_firing',
        'alert_firing',
      ]);
      expect(sent.map((n) => n.payload.alert_id).sort()).toEqual([a, b, c].sort());
      expect(await bundlesOf(route.id)).toEqual([]);
    });

    it('notifies the first alert at once, bundles the window, and opens a new bundle at its exact end', async () => {
      const project = await alertsProject(t, owner, 'edges');
      const route = await createRoute(project, {
        name: 'edges',
        priority: 1,
        bundle_window_seconds: 30,
      });
      const first = await insertAlert(project, 'First');
      await fire(project, first);
      t.clock.advance({ seconds: 10 });
      const second = await insertAlert(project, 'Second');
      const third = await insertAlert(project, 'Third');
      await fire(project, second, third);
      expect((await notifications(project)).map((n) => n.payload.alert_id)).toEqual([first]);

      // One millisecond before the end: still the window, and nothing is due.
      t.clock.advance({ ms: 19_999 });
      const fourth = await insertAlert(project, 'Fourth');
      await fire(project, fourth);
      await flush();
      expect(await notifications(project)).toHaveLength(1);

      t.clock.advance({ ms: 1 });
      const fifth = await insertAlert(project, 'Fifth');
      await fire(project, fifth);
      await flush();

      // The fifth alert and the bundle were notified at the same instant: found by kind.
      const sent = await notifications(project);
      expect(sent.map((n) => n.event_type).sort()).toEqual([
        'alert_bundle',
        'alert_firing',
        'alert_firing',
      ]);
      const firing = sent.filter((n) => n.event_type === 'alert_firing');
      expect(firing.map((n) => n.payload.alert_id)).toEqual([first, fifth]);
      expect(sent.find((n) => n.event_type === 'alert_bundle')!.payload).toMatchObject({
        route_id: route.id,
        lead_alert_id: first,
        count: 3,
        alerts: [
          {
            alert_id: second,
            alertname: 'Second',
            severity: 'critical',
            summary: 'Second is down',
          },
          { alert_id: third, alertname: 'Third' },
          { alert_id: fourth, alertname: 'Fourth' },
        ],
      });
      const mail = await t.sink
        .mailbox('storm-owner@example.com')
        .expectMail('3 more alerts on route edges');
      expect(mail.text).toContain('Second: Second is down');
      expect(mail.text).toContain('Fourth: Fourth is down');
      expect(await bundlesOf(route.id)).toEqual([
        {
          kind: 'firing',
          lead_alert_id: first,
          members: [second, third, fourth].sort(),
          flushed: true,
        },
        { kind: 'firing', lead_alert_id: fifth, members: [], flushed: false },
      ]);

      // A bundle nobody joined closes without a notification.
      t.clock.advance({ seconds: 30 });
      await flush();
      expect(await notifications(project)).toHaveLength(3);
      expect((await bundlesOf(route.id))[1].flushed).toBe(true);
    });

    it('fans every alert out to endpoints, records the bundle on the timeline, and joins ahead of the cooldown', async () => {
      const project = await alertsProject(t, owner, 'endpoints');
      const [{ id: hook }] = await db.query<Array<{ id: string }>>(
        `INSERT INTO notification_endpoint (project_id, name, url, enabled, secret, created_at, updated_at)
         VALUES ($1, 'hook', 'http://127.0.0.1:9/hook', true, 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', now(), now())
         RETURNING id`,
        [project],
      );
      const route = await createRoute(project, {
        name: 'cooled',
        priority: 1,
        bundle_window_seconds: 60,
        cooldown_seconds: 300,
        notification_endpoint_ids: [hook],
      });
      const lead = await insertAlert(project, 'Lead');
      await fire(project, lead);
      t.clock.advance({ seconds: 10 });
      const joined = await insertAlert(project, 'Joined');
      await fire(project, joined);
      const [bundle] = await db.query<Array<{ id: string }>>(
        'SELECT id FROM alert_bundle WHERE route_id = $1',
        [route.id],
      );
      const timeline = await db.query<Array<{ kind: string; details: Body }>>(
        `SELECT kind, details FROM alert_event WHERE alert_id = $1 AND kind <> 'fired'`,
        [joined],
      );
      expect(timeline).toEqual([
        {
          kind: 'notified',
          details: {
            route_id: route.id,
            target: 'org_admins',
            recipients: [owner.accountId],
            bundle_id: bundle.id,
          },
        },
      ]);
      const deliveries = await db.query<Array<{ alert_id: string; event: string }>>(
        'SELECT alert_id, event FROM webhook_delivery WHERE endpoint_id = $1',
        [hook],
      );
      expect(deliveries.map((d) => [d.alert_id, d.event]).sort()).toEqual(
        [
          [lead, 'alert_firing'],
          [joined, 'alert_firing'],
        ].sort(),
      );

      // After the window, the route's cooldown (started by the lead) still holds.
      t.clock.advance({ seconds: 50 });
      const late = await insertAlert(project, 'Late');
      await fire(project, late);
      expect(
        await db.query(
          `SELECT kind, details FROM alert_event WHERE alert_id = $1 AND kind <> 'fired'`,
          [late],
        ),
      ).toEqual([{ kind: 'suppressed', details: { reason: 'cooldown', route_id: route.id } }]);
    });

    it('bundles resolutions within the window: the first at once, then "N alerts resolved"', async () => {
      const project = await alertsProject(t, owner, 'resolutions');
      const route = await createRoute(project, {
        name: 'resolving',
        priority: 1,
        bundle_window_seconds: 60,
      });
      const a = await insertAlert(project, 'A');
      const b = await insertAlert(project, 'B');
      const c = await insertAlert(project, 'C');
      await fire(project, a, b, c);
      // Resolved inside the firing window: still listed when the firing bundle closes.
      t.clock.advance({ seconds: 20 });
      await resolveAlert(project, a);
      await resolveAlert(project, b);
      await resolve(project, a, b);
      t.clock.advance({ seconds: 20 });
      await resolveAlert(project, c);
      await resolve(project, c);
      expect(
        (await notifications(project)).map((n) => [n.event_type, n.payload.alert_id ?? null]),
      ).toEqual([
        ['alert_firing', a],
        ['alert_resolved', a],
      ]);

      t.clock.advance({ seconds: 20 }); // the firing bundle closes
      await flush();
      expect(await notifications(project)).toHaveLength(3);
      t.clock.advance({ seconds: 20 }); // and the resolution bundle
      await flush();
      const sent = await notifications(project);
      expect(sent.map((n) => n.event_type)).toEqual([
        'alert_firing',
        'alert_resolved',
        'alert_bundle',
        'alert_bundle_resolved',
      ]);
      const listed = (payload: Body) =>
        (payload.alerts as Body[]).map((alert) => alert.alert_id as string).sort();
      expect(sent[2].payload).toMatchObject({ lead_alert_id: a, count: 2 });
      expect(listed(sent[2].payload)).toEqual([b, c].sort());
      expect(sent[3].payload).toMatchObject({ lead_alert_id: a, count: 2 });
      expect(listed(sent[3].payload)).toEqual([b, c].sort());
      await t.sink
        .mailbox('storm-owner@example.com')
        .expectMail('2 alerts resolved on route resolving');
      expect((await bundlesOf(route.id)).map((b) => [b.kind, b.members.length])).toEqual([
        ['firing', 2],
        ['resolved', 2],
      ]);
    });
  });
});
