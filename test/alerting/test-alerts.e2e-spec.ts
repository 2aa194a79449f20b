import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeTwilio, type TestApp, eventually } from '@platform/testing';
import { JobName, JobQueue } from '@platform/queue';
import { DataSource } from 'typeorm';
import { TestAlertJobs } from '../../libs/alerting/src/test-alerts/test-alert-jobs.js';
import {
  createApiTestApp,
  createMailingApiTestApp,
  type MailingTestApp,
} from '../support/api-app.js';
import { type AlertingTeam, alertingTeam } from '../support/alerting.js';
import { bearer, mintToken, PASSWORD } from '../support/identity.js';
import { type ReceivedWebhook, WebhookReceiver } from './endpoints-receiver.js';
import { loseDelayedPlace } from '../support/queue.js';

type Body = Record<string, unknown>;

const SWEEP_MS = 100;
/** Long enough for several sweeps and the jobs they would enqueue. */
const settle = () => new Promise((resolve) => setTimeout(resolve, SWEEP_MS * 8));
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const BOB_PHONE = '+15550002002';

describe('test alerts', () => {
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let receiver: WebhookReceiver;
  let db: DataSource;
  let team: AlertingTeam;
  let projectId: string;
  let sequence = 0;

  const post = (body: Body = {}, credential = team.owner.jwt, project = projectId) =>
    t.request().post(`/projects/${project}/alerts/test`).set(bearer(credential)).send(body);
  const created = async (body: Body = {}, credential?: string, project?: string) =>
    (await post(body, credential, project).expect(201)).body.data as Body & {
      id: string;
      fingerprint: string;
      labels: Record<string, string>;
    };
  const api = async (path: string, body: Body) =>
    (
      await t
        .request()
        .post(`/projects/${projectId}${path}`)
        .set(bearer(team.owner.jwt))
        .send(body)
        .expect(201)
    ).body.data as Body & { id: string };
  const route = (body: Body) => api('/alert_routes', { priority: ++sequence, ...body });
  /** A chain of `steps` (each `{delay_seconds?, member, channels}`). */
  const chain = async (
    steps: Array<{ delay_seconds?: number; member: string; channels: string[] }>,
  ) => {
    const { id } = await api('/escalation_chains', { name: `chain ${++sequence}` });
    for (const step of steps)
      await api(`/escalation_chains/${id}/escalation_steps`, {
        delay_seconds: step.delay_seconds ?? 0,
        target_type: 'member',
        target_member_id: step.member,
        channels: step.channels,
      });
    return id;
  };
  const events = (alertId: string) =>
    db.query<Array<{ kind: string; details: Body }>>(
      'SELECT kind, details FROM alert_event WHERE alert_id = $1 ORDER BY created_at, id',
      [alertId],
    );
  const kinds = async (alertId: string) => (await events(alertId)).map((e) => e.kind);
  const instanceState = async (alertId: string) =>
    (
      await db.query<Array<{ state: string }>>(
        'SELECT state FROM escalation_instance WHERE alert_id = $1',
        [alertId],
      )
    ).map((row) => row.state);
  const testAlertRow = async (alertId: string) =>
    (
      await db.query<Array<{ resolve_at: Date; settled_at: Date | null; outcome: string | null }>>(
        'SELECT resolve_at, settled_at, outcome FROM test_alert WHERE alert_id = $1',
        [alertId],
      )
    )[0];
  const counts = async () =>
    (
      await db.query<Array<{ alerts: number; audits: number; scheduled: number }>>(
        `SELECT (SELECT count(*)::int FROM alert) AS alerts,
                (SELECT count(*)::int FROM audit_log WHERE action = 'alerts.test') AS audits,
                (SELECT count(*)::int FROM test_alert) AS scheduled`,
      )
    )[0];
  const isResolvedWebhookOf = (alertId: string) => (r: ReceivedWebhook) =>
    r.json.type === 'alert_resolved' && (r.json.data as { alert: Body }).alert.id === alertId;
  /** A fresh throttle window for the requests of one test. */
  const nextMinute = () => t.clock.advance({ seconds: 61 });

  beforeAll(async () => {
    twilio = await FakeTwilio.start();
    receiver = await WebhookReceiver.start();
    // The tests move the clock far from real time, which signature timestamps are checked against.
    receiver.verifying = false;
    t = await createMailingApiTestApp({
      config: { phone: twilio.config(), escalationSweepIntervalMs: SWEEP_MS },
    });
    db = t.get(DataSource);
    team = await alertingTeam(t, 'Test Alert Org');
    projectId = team.projectId;
    await db.query(
      'UPDATE account SET phone_number = $2, phone_verified_at = now() WHERE id = $1',
      [team.developer.accountId, BOB_PHONE],
    );
  });

  afterAll(async () => {
    await t?.close();
    await twilio?.close();
    await receiver?.close();
  });

  it('derives labels from eq and re matchers, overridden per key, and answers the alert as shown by GET', async () => {
    nextMinute();
    const matched = await route({
      name: 'databases',
      matchers: [
        { label: 'service', op: 'eq', value: 'db' },
        { label: 'env', op: 're', value: 'prod-.*' },
        { label: 'team', op: 'eq', value: 'core' },
      ],
      in_app_target_type: 'none',
      notification_endpoint_ids: [],
      escalation_chain_id: await chain([{ member: team.owner.accountId, channels: ['in_app'] }]),
    });

    const res = await post({
      route_id: matched.id,
      labels: { team: 'edge', instance: 'db-1', platform_test: 'false' },
    }).expect(201);
    expect(res.body.metadata).toMatchObject({
      organization_id: team.owner.organizationId,
      project_id: projectId,
    });
    const alert = res.body.data as Body & { id: string };
    expect(alert).toEqual({
      id: expect.stringMatching(new RegExp(`^${UUID}$`)),
      project_id: projectId,
      fingerprint: expect.stringMatching(new RegExp(`^test-${UUID}$`)),
      status: 'firing',
      severity: 'critical',
      labels: {
        service: 'db',
        env: '<matches: prod-.*>',
        team: 'edge',
        instance: 'db-1',
        platform_test: 'true',
        severity: 'critical',
      },
      annotations: { summary: 'Test alert for route "databases"' },
      starts_at: t.clock.now().toISOString(),
      ends_at: null,
      generator_url: '',
      last_received_at: t.clock.now().toISOString(),
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
      acknowledged: false,
      acknowledged_at: null,
      acknowledged_by: null,
      acknowledgement_count: 0,
    });
    const shown = await t
      .request()
      .get(`/projects/${projectId}/alerts/${alert.id}`)
      .set(bearer(team.owner.jwt))
      .expect(200);
    expect(shown.body.data).toEqual(alert);
    expect(await kinds(alert.id)).toEqual(['fired']);

    // The placeholder does not pass the route's expression; a real value in its place does.
    const routed = await created({
      route_id: matched.id,
      labels: { env: 'prod-eu', team: 'core' },
    });
    expect(routed.labels).toEqual({
      service: 'db',
      env: 'prod-eu',
      team: 'core',
      platform_test: 'true',
      severity: 'critical',
    });
    const routeOf = async (id: string) =>
      (
        await db.query<Array<{ route_id: string | null; outcome: string | null }>>(
          'SELECT a.route_id, d.outcome FROM alert a LEFT JOIN alert_dispatch d ON d.alert_id = a.id WHERE a.id = $1',
          [id],
        )
      )[0];
    expect(await eventually(async () => (await routeOf(routed.id)).outcome, 'dispatch')).toBe(
      'notified',
    );
    expect(await routeOf(routed.id)).toEqual({ route_id: matched.id, outcome: 'notified' });
    expect(await eventually(async () => (await routeOf(alert.id)).outcome, 'dispatch')).toBe(
      'unrouted',
    );
    // Its one-step chain ran: the escalation opened, paged and ran out of steps.
    await eventually(
      async () => (await instanceState(routed.id))[0] === 'exhausted',
      'the escalation to run',
    );
    expect(await instanceState(alert.id)).toEqual([]);
  });

  it('defaults severity to critical when absent or unrecognized', async () => {
    nextMinute();
    const info = await route({
      name: 'info',
      matchers: [{ label: 'severity', op: 'eq', value: 'info' }],
      in_app_target_type: 'none',
      enabled: false,
      escalation_chain_id: await chain([{ member: team.owner.accountId, channels: ['in_app'] }]),
    });
    const cases: Array<[Body, string]> = [
      [{}, 'critical'],
      [{ labels: { severity: 'warning' } }, 'warning'],
      [{ labels: { severity: 'urgent' } }, 'critical'],
      [{ labels: { severity: 'High' } }, 'critical'],
      [{ route_id: info.id }, 'info'],
      [{ route_id: info.id, labels: { severity: '' } }, 'critical'],
    ];
    for (const [body, severity] of cases) {
      const alert = await created(body);
      expect({ body, severity: alert.severity, label: alert.labels.severity }).toEqual({
        body,
        severity,
        label: severity,
      });
    }
    expect((await created({}, team.owner.jwt, team.otherProjectId)).labels).toEqual({
      platform_test: 'true',
      severity: 'critical',
    });
  });

  it('audits alerts.test with actor, credential, organization, project and time', async () => {
    nextMinute();
    const audit = (alertId: string) =>
      db.query<Body[]>(
        `SELECT organization_id, project_id, actor_account_id, credential_kind, credential_id,
                action, target_type, target_id, details, created_at
           FROM audit_log WHERE target_id = $1`,
        [alertId],
      );
    const session = JSON.parse(
      Buffer.from(team.developer.jwt.split('.')[1], 'base64url').toString(),
    ) as { jti: string };
    const byJwt = await created({ labels: { alertname: 'Audited' } }, team.developer.jwt);
    expect(await audit(byJwt.id)).toEqual([
      {
        organization_id: team.owner.organizationId,
        project_id: projectId,
        actor_account_id: team.developer.accountId,
        credential_kind: 'jwt',
        credential_id: session.jti,
        action: 'alerts.test',
        target_type: 'alert',
        target_id: byJwt.id,
        details: {
          fingerprint: byJwt.fingerprint,
          route_id: null,
          labels: { alertname: 'Audited', platform_test: 'true', severity: 'critical' },
        },
        created_at: t.clock.now(),
      },
    ]);

    t.clock.advance({ seconds: 3 });
    const minted = await t
      .request()
      .post('/tokens')
      .set(bearer(team.owner.jwt))
      .send({ token: { name: 'tester', scopes: ['alerts:manage'] } })
      .expect(201);
    const byToken = await created({}, minted.body.data.token as string);
    expect(await audit(byToken.id)).toEqual([
      expect.objectContaining({
        actor_account_id: team.owner.accountId,
        credential_kind: 'api_token',
        credential_id: minted.body.data.token_id,
        created_at: t.clock.now(),
      }),
    ]);
  });

  it('needs the alerts delete permission of a member and alerts:manage of a token', async () => {
    nextMinute();
    const before = await counts();
    for (const jwt of [team.viewer.jwt, team.restricted.jwt]) {
      const res = await post({}, jwt).expect(403);
      expect(res.body).toMatchObject({
        code: 'forbidden',
        message: 'Missing permission alerts:delete',
      });
    }
    for (const scopes of [['alerts:read'], ['alerts:write'], ['alert_routes:*']]) {
      const res = await post({}, await mintToken(t, team.owner.jwt, scopes)).expect(403);
      expect(res.body.code).toBe('insufficient_scope');
    }
    const res = await post({}, team.stranger.jwt).expect(404);
    expect(res.body.code).toBe('not_found');
    const bare = await post({}, team.owner.jwt, team.bareProjectId).expect(403);
    expect(bare.body.code).toBe('alerts_capability_not_enabled');
    expect(await counts()).toEqual(before);
    await post({}, await mintToken(t, team.owner.jwt, ['alerts:*'])).expect(201);
  });

  it('answers 422 with the envelope for an invalid body and writes nothing', async () => {
    nextMinute();
    const before = await counts();
    const cases: Array<[Body, string, string]> = [
      [{ route_id: 'not-a-uuid' }, 'route_id', 'route_id must be a UUID'],
      [{ route_id: 7 }, 'route_id', 'route_id must be a UUID'],
      [{ labels: ['a'] }, 'labels', 'labels must be an object of label names to strings'],
      [{ labels: 'env=prod' }, 'labels', 'labels must be an object of label names to strings'],
      [{ labels: { team: 1 } }, 'labels', 'labels.team must be a string'],
      [{ labels: { 'bad-name': 'x' } }, 'labels', 'labels.bad-name: the name must match'],
      [{ labels: { nul: 'a\u0000b' } }, 'labels.nul', 'labels.nul must not contain a NUL'],
    ];
    for (const [body, field, message] of cases) {
      const res = await post(body).expect(422);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        source_operation: 'testAlerts.create',
        retryable: false,
        request_id: expect.any(String),
      });
      const fields = (res.body.details as { fields: Array<{ field: string; messages: string[] }> })
        .fields;
      expect(fields.map((f) => f.field)).toEqual([field]);
      expect(fields[0].messages.join('; ')).toContain(message);
    }
    expect(await counts()).toEqual(before);
  });

  it('answers 404 for a route of another project, or none, and writes nothing', async () => {
    nextMinute();
    const elsewhere = (
      await t
        .request()
        .post(`/projects/${team.otherProjectId}/alert_routes`)
        .set(bearer(team.owner.jwt))
        .send({ name: 'elsewhere', priority: 1, in_app_target_type: 'org_admins' })
        .expect(201)
    ).body.data as Body & { id: string };
    const before = await counts();
    for (const routeId of [elsewhere.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await post({ route_id: routeId }).expect(404);
      expect(res.body).toMatchObject({
        code: 'not_found',
        message: 'Alert route not found',
        source_service: 'alerting',
      });
    }
    expect(await counts()).toEqual(before);
  });

  it('throttles the seventh request within a minute per credential and project, in every replica', async () => {
    nextMinute();
    const replica: TestApp = await createApiTestApp({ shareWith: t });
    try {
      const start = t.clock.now().getTime();
      for (let i = 0; i < 6; i++) {
        await created();
        t.clock.advance({ seconds: 5 });
      }
      // 30 s after the first: the other replica counts the same six.
      const before = await counts();
      const refused = await replica
        .request()
        .post(`/projects/${projectId}/alerts/test`)
        .set(bearer(team.owner.jwt))
        .send({})
        .expect(429);
      expect(refused.headers['retry-after']).toBe('30');
      expect(refused.body).toEqual({
        code: 'throttled',
        message: 'At most 6 test alerts per minute; retry in 30 seconds',
        source_service: 'alerting',
        source_operation: 'testAlerts.create',
        retryable: true,
        request_id: expect.any(String),
      });
      expect(await counts()).toEqual(before);

      // Another project, and another credential of this project, have windows of their own.
      await created({}, team.owner.jwt, team.otherProjectId);
      await created({}, await mintToken(t, team.owner.jwt, ['alerts:manage']));

      t.clock.set(new Date(start + 59_000));
      expect((await post().expect(429)).headers['retry-after']).toBe('1');
      t.clock.set(new Date(start + 60_000));
      await created();
      const again = await post().expect(429);
      expect(again.headers['retry-after']).toBe('5');
    } finally {
      await replica.close();
    }
  });

  it('resolves itself when the clock passes the limit, with every side effect of a resolution', async () => {
    nextMinute();
    const hook = await api('/notification_endpoints', { name: 'receiver', url: receiver.url() });
    const auto = await route({
      name: 'auto',
      matchers: [{ label: 'case', op: 'eq', value: 'auto' }],
      in_app_target_type: 'none',
      notification_endpoint_ids: [hook.id],
      escalation_chain_id: await chain([
        { member: team.owner.accountId, channels: ['in_app'] },
        { delay_seconds: 3000, member: team.owner.accountId, channels: ['in_app'] },
      ]),
    });
    const firedAt = t.clock.now();
    const alert = await created({ route_id: auto.id });
    expect((await testAlertRow(alert.id)).resolve_at).toEqual(
      new Date(firedAt.getTime() + 600_000),
    );
    await eventually(async () => (await instanceState(alert.id))[0] === 'active', 'escalation');

    t.clock.advance({ seconds: 599 });
    // A job released before its time (another clock, a manual promotion) finds it not due.
    const jobs = t.get(JobQueue);
    const queue = jobs.queue(jobs.queueOf(JobName.TestAlertResolve));
    const job = (await queue.getJob(TestAlertJobs.jobId(alert.id)))!;
    expect(job.data).toEqual({
      alertId: alert.id,
      resolveAt: new Date(firedAt.getTime() + 600_000).toISOString(),
    });
    await job.promote();
    await eventually(async () => !(await queue.getJob(job.id!)), 'the early job to finish');
    await settle();
    expect((await db.query('SELECT status FROM alert WHERE id = $1', [alert.id]))[0].status).toBe(
      'firing',
    );
    expect(await testAlertRow(alert.id)).toMatchObject({ settled_at: null, outcome: null });

    const resolvedAt = t.clock.advance({ seconds: 1 });
    await eventually(
      async () => (await testAlertRow(alert.id)).outcome === 'resolved',
      'auto-resolution',
    );
    const shown = await t
      .request()
      .get(`/projects/${projectId}/alerts/${alert.id}`)
      .set(bearer(team.owner.jwt))
      .expect(200);
    expect(shown.body.data).toMatchObject({
      status: 'resolved',
      ends_at: resolvedAt.toISOString(),
      starts_at: firedAt.toISOString(),
      labels: alert.labels,
    });
    const resolvedEvents = (await events(alert.id)).filter((e) => e.kind === 'resolved');
    expect(resolvedEvents).toHaveLength(1);
    expect(new Date(resolvedEvents[0].details.ends_at as string)).toEqual(resolvedAt);
    await eventually(async () => (await instanceState(alert.id))[0] === 'resolved', 'cancelled');
    const webhook = await receiver.received.waitFor(isResolvedWebhookOf(alert.id), 10_000);
    expect((webhook.json.data as { alert: Body }).alert).toMatchObject({
      id: alert.id,
      status: 'resolved',
    });
  });

  it('is resolved sooner by a resolved re-post of its fingerprint; the auto-resolution then does nothing', async () => {
    nextMinute();
    const hook = await api('/notification_endpoints', { name: 'early', url: receiver.url() });
    const early = await route({
      name: 'early',
      matchers: [{ label: 'case', op: 'eq', value: 'early' }],
      in_app_target_type: 'none',
      notification_endpoint_ids: [hook.id],
      escalation_chain_id: await chain([
        { delay_seconds: 3000, member: team.owner.accountId, channels: ['in_app'] },
      ]),
    });
    const alert = await created({ route_id: early.id });
    await eventually(async () => (await instanceState(alert.id))[0] === 'active', 'escalation');
    const token = (await api('/alert_ingest_tokens', { current_password: PASSWORD }))
      .token as string;

    t.clock.advance({ seconds: 120 });
    await t
      .request()
      .post(`/projects/${projectId}/alerts`)
      .set('X-Access-Token', token)
      .send({
        alerts: [{ status: 'resolved', fingerprint: alert.fingerprint, labels: alert.labels }],
      })
      .expect(200);
    await eventually(async () => (await instanceState(alert.id))[0] === 'resolved', 'cancelled');
    await receiver.received.waitFor(isResolvedWebhookOf(alert.id), 10_000);
    const [resolved] = await db.query<Body[]>(
      'SELECT status, ends_at, last_received_at, updated_at FROM alert WHERE id = $1',
      [alert.id],
    );
    expect(resolved.status).toBe('resolved');

    t.clock.advance({ seconds: 480 });
    await eventually(
      async () => (await testAlertRow(alert.id)).outcome === 'already_resolved',
      'the auto-resolution job',
    );
    await settle();
    expect(
      (
        await db.query<Body[]>(
          'SELECT status, ends_at, last_received_at, updated_at FROM alert WHERE id = $1',
          [alert.id],
        )
      )[0],
    ).toEqual(resolved);
    expect((await kinds(alert.id)).filter((k) => k === 'resolved')).toEqual(['resolved']);
    expect(receiver.received.items.filter(isResolvedWebhookOf(alert.id))).toHaveLength(1);
  });

  it('resolves itself though Redis kept its job without its place in the queue', async () => {
    nextMinute();
    const alert = await created();
    await loseDelayedPlace(t, JobName.TestAlertResolve, TestAlertJobs.jobId(alert.id));

    t.clock.advance({ seconds: 600 });
    await eventually(
      async () => (await testAlertRow(alert.id)).outcome === 'resolved',
      'auto-resolution',
    );
  });

  it('is suppressed by an active maintenance window and by a route cooldown, like any alert', async () => {
    nextMinute();
    const now = t.clock.now().getTime();
    const window = await api('/maintenance_windows', {
      name: 'upgrade',
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 3_600_000).toISOString(),
      matchers: [{ label: 'case', op: 'eq', value: 'maintenance' }],
    });
    const inMaintenance = await route({
      name: 'maintenance',
      matchers: [{ label: 'case', op: 'eq', value: 'maintenance' }],
      in_app_target_type: 'org_admins',
      escalation_chain_id: await chain([{ member: team.owner.accountId, channels: ['in_app'] }]),
    });
    const suppressed = await created({ route_id: inMaintenance.id });
    const suppression = await eventually(
      async () => (await events(suppressed.id)).find((e) => e.kind === 'suppressed'),
      'suppression',
    );
    expect(suppression.details).toEqual({
      reason: 'maintenance',
      maintenance_window_id: window.id,
    });
    await settle();
    // Events written at one clock instant have no order among themselves.
    expect((await kinds(suppressed.id)).sort()).toEqual(['fired', 'suppressed']);
    expect(await instanceState(suppressed.id)).toEqual([]);

    const cooled = await route({
      name: 'cooldown',
      matchers: [{ label: 'case', op: 'eq', value: 'cooldown' }],
      in_app_target_type: 'org_admins',
      cooldown_seconds: 600,
    });
    const first = await created({ route_id: cooled.id });
    await eventually(async () => (await kinds(first.id)).includes('notified'), 'notified');
    const second = await created({ route_id: cooled.id });
    const cooldown = await eventually(
      async () => (await events(second.id)).find((e) => e.kind === 'suppressed'),
      'cooldown',
    );
    expect(cooldown.details).toEqual({ reason: 'cooldown', route_id: cooled.id });
  });

  it('places a real call when the matched route reaches a phone step', async () => {
    nextMinute();
    const phone = await route({
      name: 'phone',
      matchers: [{ label: 'case', op: 'eq', value: 'phone' }],
      in_app_target_type: 'none',
      escalation_chain_id: await chain([{ member: team.developer.accountId, channels: ['phone'] }]),
    });
    const alert = await created({ route_id: phone.id, labels: { alertname: 'PhoneCheck' } });
    const call = await twilio.waitFor((r) => r.kind === 'call' && r.to === BOB_PHONE, 10_000);
    expect(call).toMatchObject({ kind: 'call', to: BOB_PHONE });
    const pages = await eventually(async () => {
      const rows = await db.query<Array<{ channel: string; status: string; account_id: string }>>(
        `SELECT p.channel, d.status, p.account_id
           FROM escalation_page p JOIN delivery d ON d.id = p.id WHERE p.alert_id = $1`,
        [alert.id],
      );
      return rows.length > 0 && rows.every((p) => p.status === 'sent') && rows;
    }, 'the phone page');
    expect(pages).toEqual([
      { channel: 'phone', status: 'sent', account_id: team.developer.accountId },
    ]);
  });
});
