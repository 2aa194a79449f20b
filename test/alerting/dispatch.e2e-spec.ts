import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { eventually } from '@platform/testing';
import { EndpointFanout } from '@platform/alerting';
import { NotifyService } from '@platform/notifications';
import { JobName, JobQueue } from '@platform/queue';
import { DataSource } from 'typeorm';
import { AlertDispatchProcessor } from '../../libs/alerting/src/dispatch/alert-dispatch.processor.js';
import {
  EscalationOpener,
  type EscalationOpening,
} from '../../libs/alerting/src/dispatch/escalation-opener.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import {
  addMember,
  bearer,
  createAccount,
  PASSWORD,
  type TestAccount,
} from '../support/identity.js';

type Body = Record<string, unknown>;

/** Records what dispatch hands over to escalation. */
class RecordingEscalationOpener extends EscalationOpener {
  readonly opened: EscalationOpening[] = [];
  readonly resolvedAlerts: string[] = [];
  open(openings: readonly EscalationOpening[]): Promise<void> {
    this.opened.push(...openings);
    return Promise.resolve();
  }
  resolved(_projectId: string, alertIds: readonly string[]): Promise<void> {
    this.resolvedAlerts.push(...alertIds);
    return Promise.resolve();
  }
}

describe('alert dispatch', () => {
  let t: MailingTestApp;
  let db: DataSource;
  let processor: AlertDispatchProcessor;
  const escalations = new RecordingEscalationOpener();
  let owner: TestAccount;
  let secondAdmin: TestAccount;
  let developer: TestAccount;
  let viewer: TestAccount;

  const createRoute = async (project: string, body: Body) =>
    (
      await t
        .request()
        .post(`/projects/${project}/alert_routes`)
        .set(bearer(owner.jwt))
        .send(body)
        .expect(201)
    ).body.data as Body & { id: string };

  let sequence = 0;
  /** An alert as ingest leaves it: firing, with its `fired` timeline event. */
  const insertAlert = async (
    project: string,
    labels: Record<string, string>,
    severity = 'critical',
    summary = 'Something broke',
  ): Promise<string> => {
    sequence += 1;
    const now = t.clock.now();
    const [{ id }] = await db.query<Array<{ id: string }>>(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations,
                          starts_at, last_received_at, created_at, updated_at)
       VALUES ($1, $2, 'firing', $3, $4, $5, $6, $6, $6, $6) RETURNING id`,
      [
        project,
        `fp-${sequence}`,
        severity,
        JSON.stringify({ alertname: `Alert${sequence}`, severity, ...labels }),
        JSON.stringify({ summary }),
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
  const refireAlert = async (project: string, id: string) => {
    await db.query(`UPDATE alert SET status = 'firing', ends_at = NULL WHERE id = $1`, [id]);
    await db.query(
      `INSERT INTO alert_event (alert_id, project_id, kind, created_at) VALUES ($1, $2, 'refired', $3)`,
      [id, project, t.clock.now()],
    );
  };
  const dispatch = (project: string, fired: string[], resolved: string[] = []) =>
    processor.dispatch({ projectId: project, fired, resolved });

  const eventsOf = async (alertId: string, kinds = ['notified', 'suppressed', 'silenced']) =>
    db.query<Array<{ kind: string; details: Body }>>(
      `SELECT kind, details FROM alert_event WHERE alert_id = $1 AND kind = ANY ($2::text[])
        ORDER BY created_at, id`,
      [alertId, kinds],
    );
  const routeOf = async (alertId: string) =>
    (
      await db.query<Array<{ route_id: string | null }>>(
        'SELECT route_id FROM alert WHERE id = $1',
        [alertId],
      )
    )[0].route_id;
  const alertNotifications = async (account: TestAccount) =>
    (
      (await t.request().get('/notifications?limit=100').set(bearer(account.jwt)).expect(200)).body
        .data as Body[]
    ).filter((n) => n.category === 'alert_escalation');
  const notifiedAlertIds = async (account: TestAccount) =>
    (await alertNotifications(account)).map((n) => (n.payload as Body).alert_id as string).sort();
  const insertEndpoint = async (project: string, enabled = true) =>
    (
      await db.query<Array<{ id: string }>>(
        `INSERT INTO notification_endpoint (project_id, name, url, enabled, secret, created_at, updated_at)
         VALUES ($1, 'hook', 'http://127.0.0.1:9/hook', $2, 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', now(), now())
         RETURNING id`,
        [project, enabled],
      )
    )[0].id;
  const deliveriesOf = (alertId: string) =>
    db.query<Array<{ endpoint_id: string; event: string }>>(
      'SELECT endpoint_id, event FROM webhook_delivery WHERE alert_id = $1 ORDER BY event, endpoint_id',
      [alertId],
    );

  beforeAll(async () => {
    t = await createMailingApiTestApp({
      override: (builder) => builder.overrideProvider(EscalationOpener).useValue(escalations),
    });
    db = t.get(DataSource);
    processor = t.get(AlertDispatchProcessor);
    owner = await createAccount(t, t.sink, 'owner@example.com', 'Dispatch Org');
    secondAdmin = await addMember(t, t.sink, owner, 'admin2@example.com', 'admin');
    developer = await addMember(t, t.sink, owner, 'dev@example.com', 'developer');
    viewer = await addMember(t, t.sink, owner, 'viewer@example.com', 'viewer');
  });

  afterAll(async () => {
    await t.close();
  });

  describe('routing', () => {
    it('sends each alert to the first enabled route whose matchers and threshold pass', async () => {
      const project = await alertsProject(t, owner, 'routing');
      await createRoute(project, { name: 'disabled catch-all', priority: 0, enabled: false });
      const db1 = await createRoute(project, {
        name: 'prod databases',
        priority: 1,
        matchers: [
          { label: 'env', op: 'eq', value: 'prod' },
          { label: 'service', op: 're', value: 'db-.*' },
        ],
        in_app_target_type: 'member',
        in_app_target_member_id: developer.accountId,
      });
      const prodHigh = await createRoute(project, {
        name: 'prod, high and up',
        priority: 2,
        matchers: [{ label: 'env', op: 'eq', value: 'prod' }],
        min_severity_for_notification: 'high',
        in_app_target_type: 'role',
        in_app_target_role: 'Member',
      });
      const warnings = await createRoute(project, {
        name: 'warnings and up',
        priority: 3,
        min_severity_for_notification: 'warning',
      });

      const a1 = await insertAlert(project, { env: 'prod', service: 'db-1' }, 'critical');
      const a2 = await insertAlert(project, { env: 'prod', service: 'web' }, 'high');
      const a3 = await insertAlert(project, { env: 'prod', service: 'web' }, 'warning');
      const a4 = await insertAlert(project, { env: 'dev' }, 'info');
      const a5 = await insertAlert(project, { env: 'prod', service: 'my-db-1' }, 'critical');
      await dispatch(project, [a1, a2, a3, a4, a5]);

      expect(await routeOf(a1)).toBe(db1.id);
      expect(await routeOf(a2)).toBe(prodHigh.id);
      expect(await routeOf(a3)).toBe(warnings.id);
      expect(await routeOf(a4)).toBeNull();
      expect(await routeOf(a5)).toBe(prodHigh.id);

      expect(await eventsOf(a1)).toEqual([
        {
          kind: 'notified',
          details: {
            route_id: db1.id,
            target: 'member',
            member_id: developer.accountId,
            recipients: [developer.accountId],
          },
        },
      ]);
      expect(await eventsOf(a2)).toEqual([
        {
          kind: 'notified',
          details: {
            route_id: prodHigh.id,
            target: 'role',
            role: 'Member',
            recipients: [developer.accountId, viewer.accountId].sort(),
          },
        },
      ]);
      expect(await eventsOf(a3)).toEqual([
        {
          kind: 'notified',
          details: {
            route_id: warnings.id,
            target: 'org_admins',
            recipients: [owner.accountId, secondAdmin.accountId].sort(),
          },
        },
      ]);
      expect(await eventsOf(a4)).toEqual([]);

      expect(await notifiedAlertIds(developer)).toEqual([a1, a2, a5].sort());
      expect(await notifiedAlertIds(viewer)).toEqual([a2, a5].sort());
      expect(await notifiedAlertIds(owner)).toEqual([a3]);
      expect(await notifiedAlertIds(secondAdmin)).toEqual([a3]);

      const [notification] = (await alertNotifications(developer)).filter(
        (n) => (n.payload as Body).alert_id === a1,
      );
      expect(notification).toMatchObject({
        category: 'alert_escalation',
        event_type: 'alert_firing',
        organization_id: owner.organizationId,
        read_at: null,
      });
      expect(notification.payload).toEqual({
        alert_id: a1,
        fingerprint: expect.stringMatching(/^fp-\d+$/),
        alertname: expect.stringMatching(/^Alert\d+$/),
        severity: 'critical',
        summary: 'Something broke',
        project_id: project,
        route_id: db1.id,
      });

      // Admins get alert_escalation e-mail at once (a mandatory category).
      const mail = await t.sink.waitFor(
        (m) => m.to.includes(owner.login) && m.subject.startsWith('[WARNING]'),
      );
      expect(mail.subject).toMatch(/^\[WARNING\] Alert\d+: Something broke$/);

      const routes = await t
        .request()
        .get(`/projects/${project}/alert_routes`)
        .set(bearer(owner.jwt))
        .expect(200);
      const notifiedAt = Object.fromEntries(
        (routes.body.data as Body[]).map((r) => [r.id, r.last_notified_at]),
      );
      expect(notifiedAt[db1.id]).toBe(t.clock.now().toISOString());
      expect(notifiedAt[warnings.id]).toBe(t.clock.now().toISOString());
    });

    it('skips alerts of other projects and alerts no longer firing', async () => {
      const project = await alertsProject(t, owner, 'scoping');
      const other = await alertsProject(t, owner, 'scoping-other');
      await createRoute(project, { priority: 1 });
      await createRoute(other, { priority: 1 });
      const foreign = await insertAlert(other, { env: 'prod' });
      const gone = await insertAlert(project, { env: 'prod' });
      await resolveAlert(project, gone);
      await dispatch(project, [foreign, gone]);
      expect(await eventsOf(foreign)).toEqual([]);
      expect(await eventsOf(gone)).toEqual([]);
      expect(await routeOf(foreign)).toBeNull();
    });
  });

  describe('at-least-once delivery', () => {
    it('notifies once per firing episode however often the job runs; a refire is a new one', async () => {
      const project = await alertsProject(t, owner, 'retries');
      const route = await createRoute(project, {
        priority: 1,
        in_app_target_type: 'member',
        in_app_target_member_id: viewer.accountId,
      });
      const alert = await insertAlert(project, { env: 'prod' });
      const before = (await notifiedAlertIds(viewer)).length;

      await dispatch(project, [alert]);
      await dispatch(project, [alert]);
      await Promise.all([dispatch(project, [alert]), dispatch(project, [alert])]);
      expect(await eventsOf(alert)).toHaveLength(1);
      expect((await notifiedAlertIds(viewer)).length).toBe(before + 1);

      t.clock.advance({ minutes: 5 });
      await resolveAlert(project, alert);
      t.clock.advance({ minutes: 5 });
      await refireAlert(project, alert);
      await Promise.all([dispatch(project, [alert]), dispatch(project, [alert])]);
      await dispatch(project, [alert]);
      const events = await eventsOf(alert);
      expect(events.map((e) => e.kind)).toEqual(['notified', 'notified']);
      expect(events[1].details.route_id).toBe(route.id);
      expect((await notifiedAlertIds(viewer)).length).toBe(before + 2);
    });

    it('runs more dispatches at once than the database pool has connections', async () => {
      // Each dispatch holds a transaction while it hands over, and the hand-over reads on
      // connections of its own: as many holders as connections would wait on each other.
      const projects = await Promise.all(
        Array.from({ length: 24 }, (_, n) => alertsProject(t, owner, `burst-${n}`)),
      );
      await Promise.all(
        projects.map((project) =>
          createRoute(project, {
            priority: 1,
            in_app_target_type: 'member',
            in_app_target_member_id: viewer.accountId,
          }),
        ),
      );
      const alerts = await Promise.all(projects.map((project) => insertAlert(project, {})));
      await Promise.all(projects.map((project, n) => dispatch(project, [alerts[n]])));
      expect(await notifiedAlertIds(viewer)).toEqual(expect.arrayContaining(alerts));
    }, 30_000);

    it('sends again after a failed hand-over: the failure releases the claim for the retry', async () => {
      const project = await alertsProject(t, owner, 'outage');
      await createRoute(project, {
        priority: 1,
        in_app_target_type: 'member',
        in_app_target_member_id: viewer.accountId,
      });
      const alert = await insertAlert(project, { env: 'prod' });
      const notify = jest
        .spyOn(t.get(NotifyService), 'notifyEach')
        .mockRejectedValueOnce(new Error('database unavailable'));
      try {
        await expect(dispatch(project, [alert])).rejects.toThrow('database unavailable');
        expect(await eventsOf(alert)).toEqual([]);
        expect(await notifiedAlertIds(viewer)).not.toContain(alert);

        await dispatch(project, [alert]);
      } finally {
        notify.mockRestore();
      }
      expect((await eventsOf(alert)).map((e) => e.kind)).toEqual(['notified']);
      expect((await notifiedAlertIds(viewer)).filter((id) => id === alert)).toHaveLength(1);
    });

    it('keeps the in-app notification of a hand-over that failed after writing it', async () => {
      const project = await alertsProject(t, owner, 'late-outage');
      await createRoute(project, {
        priority: 1,
        in_app_target_type: 'member',
        in_app_target_member_id: viewer.accountId,
      });
      const alert = await insertAlert(project, { env: 'prod' });
      const fanout = jest
        .spyOn(t.get(EndpointFanout), 'fanOut')
        .mockRejectedValueOnce(new Error('redis unavailable'));
      try {
        await expect(dispatch(project, [alert])).rejects.toThrow('redis unavailable');
        expect(await eventsOf(alert)).toEqual([]);
        expect((await notifiedAlertIds(viewer)).filter((id) => id === alert)).toHaveLength(1);

        await dispatch(project, [alert]);
      } finally {
        fanout.mockRestore();
      }
      expect((await eventsOf(alert)).map((e) => e.kind)).toEqual(['notified']);
      expect((await notifiedAlertIds(viewer)).filter((id) => id === alert)).toHaveLength(1);
    });

    it('fans a resolution out once per episode however often the job runs, and again after a failed fan-out', async () => {
      const project = await alertsProject(t, owner, 'resolutions');
      const hook = await insertEndpoint(project);
      await createRoute(project, {
        priority: 1,
        in_app_target_type: 'none',
        notification_endpoint_ids: [hook],
      });
      const alert = await insertAlert(project, {});
      // Resolved before any dispatch claimed its firing: it notified nobody.
      const unclaimed = await insertAlert(project, {});
      await dispatch(project, [alert]);
      t.clock.advance({ minutes: 1 });
      await resolveAlert(project, alert);
      await resolveAlert(project, unclaimed);
      const resolvedAt = async () =>
        (
          await db.query<Array<{ resolved_at: Date | null }>>(
            'SELECT resolved_at FROM alert_dispatch WHERE alert_id = $1',
            [alert],
          )
        ).map((row) => row.resolved_at);
      const cancelledBefore = escalations.resolvedAlerts.filter((id) => id === alert).length;

      const fanOut = jest
        .spyOn(EndpointFanout.prototype, 'fanOut')
        .mockRejectedValueOnce(new Error('database unavailable'));
      try {
        await expect(dispatch(project, [], [alert, unclaimed])).rejects.toThrow(
          'database unavailable',
        );
      } finally {
        fanOut.mockRestore();
      }
      expect(await resolvedAt()).toEqual([null]);
      expect(await deliveriesOf(alert)).toEqual([{ endpoint_id: hook, event: 'alert_firing' }]);

      await Promise.all([
        dispatch(project, [], [alert, unclaimed]),
        dispatch(project, [], [alert, unclaimed]),
      ]);
      await dispatch(project, [], [alert]);
      expect(await resolvedAt()).toEqual([t.clock.now()]);
      expect(await deliveriesOf(alert)).toEqual([
        { endpoint_id: hook, event: 'alert_firing' },
        { endpoint_id: hook, event: 'alert_resolved' },
      ]);
      expect(await deliveriesOf(unclaimed)).toEqual([]);
      // Cancelling escalations is idempotent and not claimed: every job asks for it.
      expect(escalations.resolvedAlerts.filter((id) => id === alert)).toHaveLength(
        cancelledBefore + 4,
      );

      // The next episode's resolution is a claim of its own.
      t.clock.advance({ minutes: 1 });
      await refireAlert(project, alert);
      await dispatch(project, [alert]);
      t.clock.advance({ minutes: 1 });
      await resolveAlert(project, alert);
      await dispatch(project, [], [alert]);
      await dispatch(project, [], [alert]);
      const deliveries = await deliveriesOf(alert);
      expect(deliveries.filter((d) => d.event === 'alert_resolved')).toHaveLength(2);
      expect(deliveries.filter((d) => d.event === 'alert_firing')).toHaveLength(2);
    });
  });

  describe('suppression', () => {
    it("suppresses a route's further alerts while its cooldown lasts", async () => {
      const project = await alertsProject(t, owner, 'cooldown');
      const route = await createRoute(project, {
        priority: 1,
        matchers: [{ label: 'team', op: 'eq', value: 'db' }],
        cooldown_seconds: 300,
        in_app_target_type: 'member',
        in_app_target_member_id: developer.accountId,
      });
      const uncooled = await createRoute(project, {
        priority: 2,
        in_app_target_type: 'member',
        in_app_target_member_id: developer.accountId,
      });
      const start = t.clock.now();
      const first = await insertAlert(project, { team: 'db' });
      await dispatch(project, [first]);
      expect((await eventsOf(first))[0].kind).toBe('notified');

      t.clock.advance({ seconds: 60 });
      const second = await insertAlert(project, { team: 'db' });
      const elsewhere = await insertAlert(project, { team: 'web' });
      const otherElsewhere = await insertAlert(project, { team: 'web' });
      await dispatch(project, [second, elsewhere, otherElsewhere]);
      expect(await eventsOf(second)).toEqual([
        { kind: 'suppressed', details: { reason: 'cooldown', route_id: route.id } },
      ]);
      expect(await routeOf(second)).toBe(route.id);
      expect((await eventsOf(elsewhere))[0].details.route_id).toBe(uncooled.id);
      expect((await eventsOf(otherElsewhere))[0].kind).toBe('notified');

      // The window counts from the last notification, not from the suppressed alerts.
      t.clock.set(new Date(start.getTime() + 299_000));
      const third = await insertAlert(project, { team: 'db' });
      await dispatch(project, [third]);
      expect((await eventsOf(third))[0].details.reason).toBe('cooldown');

      t.clock.set(new Date(start.getTime() + 300_000));
      const fourth = await insertAlert(project, { team: 'db' });
      const fifth = await insertAlert(project, { team: 'db' });
      await dispatch(project, [fourth, fifth]);
      expect((await eventsOf(fourth))[0].kind).toBe('notified');
      expect(await eventsOf(fifth)).toEqual([
        { kind: 'suppressed', details: { reason: 'cooldown', route_id: route.id } },
      ]);

      const notified = await notifiedAlertIds(developer);
      expect(notified).toEqual(expect.arrayContaining([first, fourth, elsewhere, otherElsewhere]));
      for (const id of [second, third, fifth]) expect(notified).not.toContain(id);
      const shown = await t
        .request()
        .get(`/projects/${project}/alert_routes/${route.id}`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(shown.body.data.last_notified_at).toBe(t.clock.now().toISOString());
    });

    it('records silenced and maintenance-suppressed alerts and notifies nobody for them', async () => {
      const project = await alertsProject(t, owner, 'suppression');
      const hook = await insertEndpoint(project);
      const route = await createRoute(project, {
        priority: 1,
        in_app_target_type: 'member',
        in_app_target_member_id: viewer.accountId,
        notification_endpoint_ids: [hook],
      });
      const now = t.clock.now();
      const minutes = (n: number) => new Date(now.getTime() + n * 60_000);

      const silenced = await insertAlert(project, { env: 'maint' });
      const expired = await insertAlert(project, { env: 'prod' });
      const [{ id: silenceId }] = await db.query<Array<{ id: string }>>(
        `INSERT INTO alert_silence (project_id, alert_id, starts_at, ends_at, comment, created_at)
         VALUES ($1, $2, $3, $4, 'known issue', $3) RETURNING id`,
        [project, silenced, minutes(-10), minutes(30)],
      );
      await db.query(
        `INSERT INTO alert_silence (project_id, alert_id, starts_at, ends_at, comment, created_at)
         VALUES ($1, $2, $3, $4, 'over', $3)`,
        [project, expired, minutes(-20), minutes(-1)],
      );
      const [{ id: windowId }] = await db.query<Array<{ id: string }>>(
        `INSERT INTO maintenance_window (project_id, name, starts_at, ends_at, matchers, created_at, updated_at)
         VALUES ($1, 'upgrade', $2, $3, $4, $2, $2) RETURNING id`,
        [
          project,
          minutes(-5),
          minutes(60),
          JSON.stringify([{ label: 'env', op: 'eq', value: 'maint' }]),
        ],
      );
      const inWindow = await insertAlert(project, { env: 'maint' });
      const outside = await insertAlert(project, { env: 'prod' });

      await dispatch(project, [silenced, expired, inWindow, outside]);
      expect(await eventsOf(silenced)).toEqual([
        { kind: 'silenced', details: { silence_id: silenceId } },
      ]);
      expect(await eventsOf(inWindow)).toEqual([
        { kind: 'suppressed', details: { reason: 'maintenance', maintenance_window_id: windowId } },
      ]);
      expect((await eventsOf(expired))[0].kind).toBe('notified');
      expect((await eventsOf(outside))[0].kind).toBe('notified');
      expect(await routeOf(silenced)).toBe(route.id);
      expect(await routeOf(inWindow)).toBe(route.id);

      const notified = await notifiedAlertIds(viewer);
      expect(notified).toEqual(expect.arrayContaining([expired, outside]));
      expect(notified).not.toContain(silenced);
      expect(notified).not.toContain(inWindow);
      expect(await deliveriesOf(silenced)).toEqual([]);
      expect(await deliveriesOf(inWindow)).toEqual([]);
      expect(await deliveriesOf(outside)).toEqual([{ endpoint_id: hook, event: 'alert_firing' }]);

      // Resolving what notified nobody notifies nobody either.
      t.clock.advance({ minutes: 1 });
      for (const id of [silenced, inWindow, outside]) await resolveAlert(project, id);
      await dispatch(project, [], [silenced, inWindow, outside]);
      expect(await deliveriesOf(silenced)).toEqual([]);
      expect(await deliveriesOf(inWindow)).toEqual([]);
      expect(await deliveriesOf(outside)).toEqual([
        { endpoint_id: hook, event: 'alert_firing' },
        { endpoint_id: hook, event: 'alert_resolved' },
      ]);
    });
  });

  describe('targets, endpoints and chains', () => {
    it('records a roster target with no recipients yet, and a none target that only fans out', async () => {
      const project = await alertsProject(t, owner, 'targets');
      const [{ id: roster }] = await db.query<Array<{ id: string }>>(
        `INSERT INTO on_call_roster (project_id, name, created_at, updated_at)
         VALUES ($1, 'primary', now(), now()) RETURNING id`,
        [project],
      );
      const [{ id: chain }] = await db.query<Array<{ id: string }>>(
        `INSERT INTO escalation_chain (project_id, name, created_at, updated_at)
         VALUES ($1, 'pager', now(), now()) RETURNING id`,
        [project],
      );
      const enabled = await insertEndpoint(project);
      const disabled = await insertEndpoint(project, false);
      const rosterRoute = await createRoute(project, {
        priority: 1,
        matchers: [{ label: 'to', op: 'eq', value: 'roster' }],
        in_app_target_type: 'roster',
        in_app_target_roster_id: roster,
      });
      const hookRoute = await createRoute(project, {
        priority: 2,
        matchers: [{ label: 'to', op: 'eq', value: 'hooks' }],
        in_app_target_type: 'none',
        notification_endpoint_ids: [enabled, disabled],
      });
      const chainRoute = await createRoute(project, {
        priority: 3,
        matchers: [{ label: 'to', op: 'eq', value: 'chain' }],
        in_app_target_type: 'none',
        escalation_chain_id: chain,
      });
      const before = await Promise.all(
        [owner, secondAdmin, developer, viewer].map(notifiedAlertIds),
      );

      const toRoster = await insertAlert(project, { to: 'roster' });
      const toHooks = await insertAlert(project, { to: 'hooks' });
      const toChain = await insertAlert(project, { to: 'chain' });
      await dispatch(project, [toRoster, toHooks, toChain]);

      expect(await eventsOf(toRoster)).toEqual([
        {
          kind: 'notified',
          details: {
            route_id: rosterRoute.id,
            target: 'roster',
            roster_id: roster,
            recipients: [],
          },
        },
      ]);
      expect(await eventsOf(toHooks)).toEqual([
        { kind: 'notified', details: { route_id: hookRoute.id, target: 'none', recipients: [] } },
      ]);
      expect(await deliveriesOf(toHooks)).toEqual([
        { endpoint_id: enabled, event: 'alert_firing' },
      ]);
      expect(await deliveriesOf(toRoster)).toEqual([]);
      expect(escalations.opened).toContainEqual({
        projectId: project,
        alertId: toChain,
        firedEventId: expect.any(String),
        routeId: chainRoute.id,
        escalationChainId: chain,
      });
      expect(escalations.opened.filter((o) => o.projectId === project)).toHaveLength(1);
      const after = await Promise.all(
        [owner, secondAdmin, developer, viewer].map(notifiedAlertIds),
      );
      expect(after).toEqual(before);
    });

    it('notifies nobody for a member who left the organization', async () => {
      const project = await alertsProject(t, owner, 'leaver');
      const leaver = await addMember(t, t.sink, owner, 'leaver@example.com', 'developer');
      const route = await createRoute(project, {
        priority: 1,
        in_app_target_type: 'member',
        in_app_target_member_id: leaver.accountId,
      });
      await db.query('DELETE FROM membership WHERE account_id = $1', [leaver.accountId]);
      const alert = await insertAlert(project, {});
      await dispatch(project, [alert]);
      expect(await eventsOf(alert)).toEqual([
        {
          kind: 'notified',
          details: {
            route_id: route.id,
            target: 'member',
            member_id: leaver.accountId,
            recipients: [],
          },
        },
      ]);
    });
  });

  describe('through the queue', () => {
    it('runs an enqueued dispatch job in the worker', async () => {
      const project = await alertsProject(t, owner, 'queued');
      const route = await createRoute(project, {
        priority: 1,
        in_app_target_type: 'member',
        in_app_target_member_id: developer.accountId,
      });
      const alert = await insertAlert(project, { env: 'prod' });
      await t
        .get(JobQueue)
        .enqueue(JobName.AlertDispatch, { projectId: project, fired: [alert], resolved: [] });
      const [event] = await eventually(async () => {
        const found = await eventsOf(alert);
        return found.length > 0 && found;
      }, 'the notified event');
      expect(event).toEqual({
        kind: 'notified',
        details: {
          route_id: route.id,
          target: 'member',
          member_id: developer.accountId,
          recipients: [developer.accountId],
        },
      });
      expect(await notifiedAlertIds(developer)).toContain(alert);
    });

    it('routes what the ingest endpoint receives, and fans out its resolution', async () => {
      const project = await alertsProject(t, owner, 'ingested');
      const hook = await insertEndpoint(project);
      await createRoute(project, {
        priority: 1,
        matchers: [{ label: 'env', op: 're', value: 'prod|staging' }],
        min_severity_for_notification: 'high',
        in_app_target_type: 'member',
        in_app_target_member_id: viewer.accountId,
        notification_endpoint_ids: [hook],
      });
      const token = (
        await t
          .request()
          .post(`/projects/${project}/alert_ingest_tokens`)
          .set(bearer(owner.jwt))
          // The tests move the clock past the session's reauthentication window.
          .send({ current_password: PASSWORD })
          .expect(201)
      ).body.data.token as string;
      const payload = (status: string, alerts: Array<{ fingerprint: string; labels: Body }>) => ({
        version: '4',
        status,
        receiver: 'platform',
        alerts: alerts.map((a) => ({
          status,
          labels: a.labels,
          annotations: { summary: `${a.fingerprint} is down` },
          startsAt: t.clock.now().toISOString(),
          endsAt: status === 'resolved' ? t.clock.now().toISOString() : '0001-01-01T00:00:00Z',
          fingerprint: a.fingerprint,
          generatorURL: 'http://prometheus.example/graph',
        })),
      });
      const ingest = (body: Body) =>
        t.request().post(`/projects/${project}/alerts`).set(bearer(token)).send(body).expect(200);
      const alerts = [
        {
          fingerprint: 'ing-critical',
          labels: { alertname: 'DbDown', severity: 'critical', env: 'prod' },
        },
        {
          fingerprint: 'ing-warning',
          labels: { alertname: 'DiskSlow', severity: 'warning', env: 'prod' },
        },
        {
          fingerprint: 'ing-dev',
          labels: { alertname: 'DbDown', severity: 'critical', env: 'dev' },
        },
      ];
      await ingest(payload('firing', alerts));
      const ids = Object.fromEntries(
        (
          await db.query<Array<{ id: string; fingerprint: string }>>(
            'SELECT id, fingerprint FROM alert WHERE project_id = $1',
            [project],
          )
        ).map((r) => [r.fingerprint, r.id]),
      );
      await eventually(
        async () => (await notifiedAlertIds(viewer)).includes(ids['ing-critical']),
        'the in-app notification',
      );
      await eventually(
        async () => (await deliveriesOf(ids['ing-critical'])).length === 1,
        'the alert_firing delivery',
      );
      const notified = await notifiedAlertIds(viewer);
      expect(notified).not.toContain(ids['ing-warning']);
      expect(notified).not.toContain(ids['ing-dev']);

      t.clock.advance({ minutes: 2 });
      await ingest(payload('resolved', alerts));
      await eventually(
        async () => (await deliveriesOf(ids['ing-critical'])).length === 2,
        'the alert_resolved delivery',
      );
      expect(await deliveriesOf(ids['ing-critical'])).toEqual([
        { endpoint_id: hook, event: 'alert_firing' },
        { endpoint_id: hook, event: 'alert_resolved' },
      ]);
      expect(await deliveriesOf(ids['ing-warning'])).toEqual([]);
    });
  });
});
