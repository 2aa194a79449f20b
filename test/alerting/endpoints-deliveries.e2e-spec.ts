import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ALERTS_PRUNE_PATTERN,
  ALERTS_PRUNE_SCHEDULER_ID,
  EndpointFanout,
  WEBHOOK_DELIVERY_POLICY,
  WEBHOOK_USER_AGENT,
  type WebhookDeliveryPolicy,
} from '@platform/alerting';
import { JobName, JobQueue, QueueName } from '@platform/queue';
import { closedLocalPort, eventually } from '@platform/testing';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { bearer, createAccount, login, type TestAccount } from '../support/identity.js';
import { WebhookDeliveriesRepository } from '../../libs/alerting/src/endpoints/webhook-deliveries.repository.js';
import { WebhookReceiver } from './endpoints-receiver.js';

/** Short backoff and few attempts, so retries and exhaustion happen within a test. */
const POLICY: WebhookDeliveryPolicy = {
  attempts: 3,
  backoffMs: 50,
  timeoutMs: 10_000,
  previousSecretGraceMs: 24 * 3_600_000,
};

type Delivery = {
  id: string;
  status: string;
  attempt_count: number;
  attempts: Array<Record<string, unknown>>;
} & Record<string, unknown>;

interface Alert {
  id: string;
  fingerprint: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  starts_at: string;
  generator_url: string;
}

describe('notification endpoints: signed webhook deliveries', () => {
  let t: MailingTestApp;
  let receiver: WebhookReceiver;
  let owner: TestAccount;
  let projectId: string;
  let otherProjectId: string;
  let db: DataSource;
  let sequence = 0;

  const base = (project = projectId) => `/projects/${project}/notification_endpoints`;

  /** Creates an endpoint and trusts its secret at the receiver. */
  const endpoint = async (
    body: Record<string, unknown> = {},
    project = projectId,
  ): Promise<{ id: string; secret: string }> => {
    const res = await t
      .request()
      .post(base(project))
      .set(bearer(owner.jwt))
      .send({ name: `hook ${++sequence}`, url: receiver.url(), ...body })
      .expect(201);
    receiver.secrets.push(res.body.data.secret as string);
    return { id: res.body.data.id as string, secret: res.body.data.secret as string };
  };

  const insertAlert = async (project = projectId, status = 'firing'): Promise<Alert> => {
    const n = ++sequence;
    const now = t.clock.now();
    const startsAt = new Date(now.getTime() - 60_000);
    const labels = { alertname: `DiskFull${n}`, severity: 'critical', instance: `db-${n}` };
    const annotations = { summary: `Disk ${n} is full` };
    const [row]: Array<{ id: string }> = await db.query(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations, starts_at,
                          ends_at, generator_url, last_received_at, created_at, updated_at)
       VALUES ($1, $2, $3, 'critical', $4, $5, $6, NULL, $7, $8, $8, $8) RETURNING id`,
      [
        project,
        `fp-${n}`,
        status,
        labels,
        annotations,
        startsAt,
        `https://prometheus.example/graph?g0.expr=disk${n}`,
        now,
      ],
    );
    return {
      id: row.id,
      fingerprint: `fp-${n}`,
      labels,
      annotations,
      starts_at: startsAt.toISOString(),
      generator_url: `https://prometheus.example/graph?g0.expr=disk${n}`,
    };
  };

  const deliveries = async (endpointId: string, query = '', project = projectId) => {
    const res = await t
      .request()
      .get(`${base(project)}/${endpointId}/deliveries${query}`)
      .set(bearer(owner.jwt))
      .expect(200);
    return res.body as { data: Delivery[]; metadata: { count: number; total: number } };
  };

  /** Polls the API until the endpoint's deliveries satisfy `done`. */
  const deliveriesWhen = (
    endpointId: string,
    done: (items: Delivery[]) => boolean,
    query = '',
  ): Promise<Delivery[]> =>
    eventually(
      async () => (await deliveries(endpointId, query)).data,
      done,
      "the endpoint's deliveries",
    );
  const settled = (count: number) => (items: Delivery[]) =>
    items.length === count && items.every((d) => d.status !== 'pending');

  const fanOut = (
    event: 'alert_firing' | 'alert_resolved',
    pairs: Array<{ alertId: string; endpointIds: string[] }>,
    project = projectId,
  ) => t.get(EndpointFanout).fanOut(project, event, pairs);

  const expectedAlert = (alert: Alert, project = projectId) => ({
    id: alert.id,
    project_id: project,
    fingerprint: alert.fingerprint,
    status: 'firing',
    severity: 'critical',
    labels: alert.labels,
    annotations: alert.annotations,
    starts_at: alert.starts_at,
    ends_at: null,
    generator_url: alert.generator_url,
  });

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await createMailingApiTestApp({
      override: (builder) => builder.overrideProvider(WEBHOOK_DELIVERY_POLICY).useValue(POLICY),
    });
    db = t.get(DataSource);
    owner = await createAccount(t, t.sink, 'owner@deliveries.example');
    projectId = await alertsProject(t, owner);
    otherProjectId = await alertsProject(t, owner, 'staging');
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  describe('with the clock near real time (receivers check the signed timestamp)', () => {
    it('delivers a signed alert_firing POST the receiver verifies, and lists it with its attempt', async () => {
      const hook = await endpoint();
      const alert = await insertAlert();
      const firedAt = t.clock.now();
      await fanOut('alert_firing', [{ alertId: alert.id, endpointIds: [hook.id] }]);

      const [delivery] = await deliveriesWhen(hook.id, settled(1));
      const [got] = receiver.byId(delivery.id);
      expect(got).toBeDefined();
      expect(got.path).toBe('/hooks/alerts');
      expect(got.verifiedBy).toEqual([hook.secret]);
      expect(got.status).toBe(200);
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toBe(WEBHOOK_USER_AGENT);
      expect(got.headers['webhook-id']).toBe(delivery.id);
      expect(got.headers['webhook-timestamp']).toBe(String(Math.floor(firedAt.getTime() / 1000)));
      expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      // The exact signature of the exact bytes received.
      expect(got.headers['webhook-signature']).toBe(
        new Webhook(hook.secret).sign(delivery.id, firedAt, got.body),
      );
      const payload = {
        type: 'alert_firing',
        timestamp: firedAt.toISOString(),
        data: { alert: expectedAlert(alert) },
      };
      expect(got.json).toEqual(payload);
      expect(Object.keys(got.json)).toEqual(['type', 'timestamp', 'data']);

      expect(delivery).toEqual({
        id: delivery.id,
        endpoint_id: hook.id,
        alert_id: alert.id,
        event: 'alert_firing',
        status: 'succeeded',
        attempt_count: 1,
        last_attempt_at: firedAt.toISOString(),
        next_attempt_at: null,
        created_at: firedAt.toISOString(),
        payload,
        attempts: [
          {
            attempt: 1,
            started_at: firedAt.toISOString(),
            response_status: 200,
            // Only a failed attempt keeps the receiver's answer.
            response_body: null,
            error: null,
            duration_ms: expect.any(Number),
          },
        ],
      });
    });

    it('delivers alert_resolved with the resolved alert', async () => {
      const hook = await endpoint({ events: ['alert_resolved'] });
      const alert = await insertAlert();
      const endsAt = t.clock.now();
      await db.query(`UPDATE alert SET status = 'resolved', ends_at = $2 WHERE id = $1`, [
        alert.id,
        endsAt,
      ]);
      await fanOut('alert_resolved', [{ alertId: alert.id, endpointIds: [hook.id] }]);
      const [delivery] = await deliveriesWhen(hook.id, settled(1));
      expect(delivery.status).toBe('succeeded');
      const [got] = receiver.byId(delivery.id);
      expect(got.verifiedBy).toEqual([hook.secret]);
      expect(got.json).toEqual({
        type: 'alert_resolved',
        timestamp: t.clock.now().toISOString(),
        data: {
          alert: { ...expectedAlert(alert), status: 'resolved', ends_at: endsAt.toISOString() },
        },
      });
    });

    it('retries a failed attempt with the same webhook-id and records both attempts', async () => {
      const hook = await endpoint();
      const alert = await insertAlert();
      receiver.answer(500);
      await fanOut('alert_firing', [{ alertId: alert.id, endpointIds: [hook.id] }]);
      const [delivery] = await deliveriesWhen(hook.id, settled(1));

      const got = receiver.byId(delivery.id);
      expect(got.map((r) => r.status)).toEqual([500, 200]);
      expect(got.map((r) => r.verifiedBy)).toEqual([[hook.secret], [hook.secret]]);
      // Same message, same id: the receiver can deduplicate.
      expect(got[1].body).toBe(got[0].body);
      expect(delivery).toMatchObject({
        status: 'succeeded',
        attempt_count: 2,
        next_attempt_at: null,
      });
      expect(delivery.attempts).toEqual([
        {
          attempt: 1,
          started_at: expect.any(String),
          response_status: 500,
          response_body: 'answer 500',
          error: 'receiver answered 500',
          duration_ms: expect.any(Number),
        },
        {
          attempt: 2,
          started_at: expect.any(String),
          response_status: 200,
          response_body: null,
          error: null,
          duration_ms: expect.any(Number),
        },
      ]);
      // The delivery record behind the answer: one delivery, an attempt row per attempt.
      expect(
        await db.query(
          `SELECT source, channel, status, reason, attempts, finished_at IS NOT NULL AS finished
             FROM delivery WHERE id = $1`,
          [delivery.id],
        ),
      ).toEqual([
        {
          source: 'endpoint_webhook',
          channel: 'webhook',
          status: 'sent',
          reason: null,
          attempts: 2,
          finished: true,
        },
      ]);
      expect(
        await db.query(
          `SELECT attempt, outcome, reason, response_status FROM delivery_attempt
            WHERE delivery_id = $1 ORDER BY attempt`,
          [delivery.id],
        ),
      ).toEqual([
        { attempt: 1, outcome: 'failed', reason: 'receiver answered 500', response_status: 500 },
        { attempt: 2, outcome: 'sent', reason: null, response_status: 200 },
      ]);
    });

    it('marks a delivery failed after the last attempt', async () => {
      const hook = await endpoint();
      const alert = await insertAlert();
      receiver.answer(503, 502, 500);
      await fanOut('alert_firing', [{ alertId: alert.id, endpointIds: [hook.id] }]);
      const [delivery] = await deliveriesWhen(hook.id, settled(1));
      expect(delivery).toMatchObject({ status: 'failed', attempt_count: 3, next_attempt_at: null });
      expect(delivery.attempts.map((a) => [a.attempt, a.response_status])).toEqual([
        [1, 503],
        [2, 502],
        [3, 500],
      ]);
      expect(receiver.byId(delivery.id)).toHaveLength(3);
    });

    it('records network errors as attempts without a status', async () => {
      const port = await closedLocalPort();
      const hook = await endpoint({ url: `http://127.0.0.1:${port}/hook` });
      const alert = await insertAlert();
      await fanOut('alert_firing', [{ alertId: alert.id, endpointIds: [hook.id] }]);
      const [delivery] = await deliveriesWhen(hook.id, settled(1));
      expect(delivery).toMatchObject({ status: 'failed', attempt_count: 3 });
      for (const attempt of delivery.attempts) {
        expect(attempt).toMatchObject({ response_status: null, response_body: null });
        expect(attempt.error).toMatch(/ECONNREFUSED/);
      }
    });

    it('does not follow redirects', async () => {
      const hook = await endpoint();
      const alert = await insertAlert();
      receiver.answer({ status: 307, location: receiver.url('/redirected') });
      await fanOut('alert_firing', [{ alertId: alert.id, endpointIds: [hook.id] }]);
      const [delivery] = await deliveriesWhen(hook.id, settled(1));
      expect(delivery.status).toBe('succeeded');
      expect(delivery.attempts.map((a) => [a.response_status, a.error])).toEqual([
        [307, `redirect to ${receiver.url('/redirected')} not followed`],
        [200, null],
      ]);
      expect(receiver.byId(delivery.id).map((r) => r.path)).toEqual([
        '/hooks/alerts',
        '/hooks/alerts',
      ]);
      expect(receiver.received.items.filter((r) => r.path === '/redirected')).toEqual([]);
    });

    it('skips disabled endpoints, unsubscribed events and ids outside the project', async () => {
      const control = await endpoint();
      const disabled = await endpoint({ enabled: false });
      const resolvedOnly = await endpoint({ events: ['alert_resolved'] });
      const foreign = await endpoint({}, otherProjectId);
      const alert = await insertAlert();
      const foreignAlert = await insertAlert(otherProjectId);
      await fanOut('alert_firing', [
        {
          alertId: alert.id,
          endpointIds: [
            control.id,
            disabled.id,
            resolvedOnly.id,
            foreign.id,
            '00000000-0000-4000-8000-000000000000',
            control.id,
          ],
        },
        { alertId: foreignAlert.id, endpointIds: [control.id, foreign.id] },
        { alertId: alert.id, endpointIds: [] },
      ]);
      const [delivery] = await deliveriesWhen(control.id, settled(1));
      expect(delivery).toMatchObject({ alert_id: alert.id, status: 'succeeded' });
      expect((await deliveries(disabled.id)).metadata.total).toBe(0);
      expect((await deliveries(resolvedOnly.id)).metadata.total).toBe(0);
      expect((await deliveries(foreign.id, '', otherProjectId)).metadata.total).toBe(0);
      const rows: Array<{ count: number }> = await db.query(
        'SELECT count(*)::int AS count FROM webhook_delivery WHERE alert_id = ANY ($1::uuid[])',
        [[alert.id, foreignAlert.id]],
      );
      expect(rows[0].count).toBe(1);

      // The resolved-only endpoint does get alert_resolved.
      await fanOut('alert_resolved', [
        { alertId: alert.id, endpointIds: [resolvedOnly.id, disabled.id] },
      ]);
      const [resolved] = await deliveriesWhen(resolvedOnly.id, settled(1));
      expect(resolved).toMatchObject({ event: 'alert_resolved', status: 'succeeded' });
      expect((await deliveries(disabled.id)).metadata.total).toBe(0);
    });

    it('fans many alerts out to many endpoints in one call', async () => {
      const hooks = [await endpoint(), await endpoint()];
      const alerts = [await insertAlert(), await insertAlert(), await insertAlert()];
      await fanOut(
        'alert_firing',
        alerts.map((a) => ({ alertId: a.id, endpointIds: hooks.map((h) => h.id) })),
      );
      for (const hook of hooks) {
        const items = await deliveriesWhen(hook.id, settled(3));
        expect(items.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
        expect(items.map((d) => d.alert_id).sort()).toEqual(alerts.map((a) => a.id).sort());
        for (const d of items) {
          expect(receiver.byId(d.id).map((r) => r.verifiedBy)).toEqual([[hook.secret]]);
        }
      }
    });

    it('pages deliveries newest first; 200 is the largest page', async () => {
      const hook = await endpoint();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        t.clock.advance({ seconds: 1 });
        const alert = await insertAlert();
        ids.push(alert.id);
        await fanOut('alert_firing', [{ alertId: alert.id, endpointIds: [hook.id] }]);
      }
      await deliveriesWhen(hook.id, settled(3));
      const newestFirst = [...ids].reverse();
      const page = await deliveries(hook.id, '?limit=2');
      expect(page.metadata).toMatchObject({ count: 2, total: 3 });
      expect(page.data.map((d) => d.alert_id)).toEqual(newestFirst.slice(0, 2));
      const second = await deliveries(hook.id, '?limit=2&offset=2');
      expect(second.metadata).toMatchObject({ count: 1, total: 3 });
      expect(second.data.map((d) => d.alert_id)).toEqual(newestFirst.slice(2));
      const smallest = await deliveries(hook.id, '?limit=1&offset=0&future_filter=x');
      expect(smallest.metadata).toMatchObject({ count: 1, total: 3 });
      expect(smallest.data[0].alert_id).toBe(newestFirst[0]);
      expect((await deliveries(hook.id, '?limit=200')).metadata.count).toBe(3);
      expect((await deliveries(hook.id, '?offset=3')).data).toEqual([]);
    });

    it.each([
      ['limit=0', 'limit', 'limit must be an integer from 1 to 200'],
      ['limit=9999', 'limit', 'limit must be an integer from 1 to 200'],
      ['limit=abc', 'limit', 'limit must be an integer from 1 to 200'],
      ['offset=-4', 'offset', 'offset must be an integer from 0 to 9007199254740991'],
      ['offset=xyz', 'offset', 'offset must be an integer from 0 to 9007199254740991'],
    ])('refuses %s with 422 naming the parameter', async (query, field, message) => {
      const hook = await endpoint();
      const res = await t
        .request()
        .get(`${base()}/${hook.id}/deliveries?${query}`)
        .set(bearer(owner.jwt))
        .expect(422);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        message: `Validation failed: ${message}`,
        source_operation: 'notificationEndpoints.deliveries',
        details: { fields: [{ field, messages: [message] }] },
      });
    });

    it('sends a signed endpoint.test ping, to a disabled endpoint too', async () => {
      const hook = await endpoint({ enabled: false });
      const res = await t
        .request()
        .post(`${base()}/${hook.id}/test`)
        .set(bearer(owner.jwt))
        .expect(202);
      const payload = {
        type: 'endpoint.test',
        timestamp: t.clock.now().toISOString(),
        data: {
          endpoint: {
            id: hook.id,
            project_id: projectId,
            name: expect.any(String),
            url: receiver.url(),
          },
        },
      };
      expect(res.body.data).toEqual({
        id: expect.any(String),
        endpoint_id: hook.id,
        alert_id: null,
        event: 'endpoint.test',
        status: 'pending',
        attempt_count: 0,
        last_attempt_at: null,
        next_attempt_at: t.clock.now().toISOString(),
        created_at: t.clock.now().toISOString(),
        payload,
        attempts: [],
      });
      const [delivery] = await deliveriesWhen(hook.id, settled(1));
      expect(delivery).toMatchObject({ id: res.body.data.id, status: 'succeeded' });
      const [got] = receiver.byId(delivery.id);
      expect(got.verifiedBy).toEqual([hook.secret]);
      expect(got.json).toEqual(payload);
    });

    it('deleting an endpoint deletes its deliveries, their records and attempts', async () => {
      const hook = await endpoint();
      const alert = await insertAlert();
      await fanOut('alert_firing', [{ alertId: alert.id, endpointIds: [hook.id] }]);
      const [delivery] = await deliveriesWhen(hook.id, settled(1));
      const records = () =>
        db.query(
          `SELECT 'delivery' AS row FROM delivery WHERE id = $1
           UNION ALL SELECT 'webhook_delivery' FROM webhook_delivery WHERE id = $1
           UNION ALL SELECT 'delivery_attempt' FROM delivery_attempt WHERE delivery_id = $1
           ORDER BY 1`,
          [delivery.id],
        );
      expect(await records()).toEqual([
        { row: 'delivery' },
        { row: 'delivery_attempt' },
        { row: 'webhook_delivery' },
      ]);
      await t.request().delete(`${base()}/${hook.id}`).set(bearer(owner.jwt)).expect(204);
      expect(await records()).toEqual([]);
    });

    it('a delivery whose job could not be queued fails in its record, unattempted', async () => {
      const hook = await endpoint();
      const repository = t.get(WebhookDeliveriesRepository);
      const delivery = await repository.createTestDelivery(projectId, hook.id, t.clock.now());
      expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });
      const at = t.clock.now();
      await repository.abandonUnsent([delivery!.id], at);
      expect(
        await db.query(
          `SELECT source, channel, status, reason, attempts, next_attempt_at, finished_at
             FROM delivery WHERE id = $1`,
          [delivery!.id],
        ),
      ).toEqual([
        {
          source: 'endpoint_webhook',
          channel: 'webhook',
          status: 'failed',
          reason: 'not_queued',
          attempts: 0,
          next_attempt_at: null,
          finished_at: at,
        },
      ]);
      expect(
        await db.query('SELECT 1 FROM delivery_attempt WHERE delivery_id = $1', [delivery!.id]),
      ).toEqual([]);
    });

    it('signs with the new and the previous secret for a day after a rotation', async () => {
      const hook = await endpoint();
      const rotated = await t
        .request()
        .post(`${base()}/${hook.id}/rotate_secret`)
        .set(bearer(owner.jwt))
        .expect(200);
      const secret = rotated.body.data.secret as string;
      receiver.secrets.push(secret);
      await t.request().post(`${base()}/${hook.id}/test`).set(bearer(owner.jwt)).expect(202);
      const [delivery] = await deliveriesWhen(hook.id, settled(1));
      expect(delivery.status).toBe('succeeded');
      const [got] = receiver.byId(delivery.id);
      // Both a receiver still on the old secret and one on the new secret accept it.
      expect(got.verifiedBy.sort()).toEqual([hook.secret, secret].sort());
      expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    });
  });

  describe('after the clock moves on', () => {
    it('stops signing with the previous secret once its day is over', async () => {
      const hook = await endpoint();
      const rotated = await t
        .request()
        .post(`${base()}/${hook.id}/rotate_secret`)
        .set(bearer(owner.jwt))
        .expect(200);
      const secret = rotated.body.data.secret as string;
      // The signed timestamp now lies a day ahead of real time, which verify() refuses.
      receiver.verifying = false;
      const at = t.clock.advance({ hours: 24, minutes: 1 });
      // Sessions last 12 hours.
      owner.jwt = await login(t, owner.login);
      await t.request().post(`${base()}/${hook.id}/test`).set(bearer(owner.jwt)).expect(202);
      const [delivery] = await deliveriesWhen(hook.id, settled(1));
      const [got] = receiver.byId(delivery.id);
      expect(got.headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
      expect(got.headers['webhook-signature']).toBe(
        new Webhook(secret).sign(delivery.id, at, got.body),
      );
    });

    it('prunes deliveries, attempts, timeline events and settled pages older than 90 days, in a daily job', async () => {
      const scheduler = await t
        .get(JobQueue)
        .queue(QueueName.Maintenance)
        .getJobScheduler(ALERTS_PRUNE_SCHEDULER_ID);
      expect(scheduler).toMatchObject({ name: JobName.AlertsPrune, pattern: ALERTS_PRUNE_PATTERN });

      const hook = await endpoint();
      const seed = async () => {
        const alert = await insertAlert();
        const at = t.clock.now();
        const [delivery]: Array<{ id: string }> = await db.query(
          `INSERT INTO webhook_delivery (endpoint_id, project_id, alert_id, event, payload, created_at)
           VALUES ($1, $2, $3, 'alert_firing', '{}', $4) RETURNING id`,
          [hook.id, projectId, alert.id, at],
        );
        await db.query(
          `INSERT INTO delivery (id, source, channel, status, attempts, created_at, due_at,
                                 last_attempt_at, finished_at)
           VALUES ($1, 'endpoint_webhook', 'webhook', 'sent', 1, $2, $2, $2, $2)`,
          [delivery.id, at],
        );
        await db.query(
          `INSERT INTO delivery_attempt (delivery_id, attempt, started_at, duration_ms, outcome,
                                         response_status)
           VALUES ($1, 1, $2, 5, 'sent', 200)`,
          [delivery.id, at],
        );
        const [event]: Array<{ id: string }> = await db.query(
          `INSERT INTO alert_event (alert_id, project_id, kind, created_at)
           VALUES ($1, $2, 'fired', $3) RETURNING id`,
          [alert.id, projectId, at],
        );
        const page = async (status: string) =>
          (
            await db.query<Array<{ id: string }>>(
              `WITH page AS (
                 INSERT INTO escalation_page (instance_id, project_id, alert_id, generation,
                   repeat_count, step_index, channel, created_at)
                 VALUES (gen_random_uuid(), $1, $2, 0, 0, 0, 'in_app', $4) RETURNING id
               ), record AS (
                 INSERT INTO delivery (id, source, channel, status, created_at, due_at)
                 SELECT id, 'escalation_page', 'in_app', $3, $4, $4 FROM page
               )
               SELECT id FROM page`,
              [projectId, alert.id, status, at],
            )
          )[0].id;
        return {
          delivery: delivery.id,
          event: event.id,
          sentPage: await page('sent'),
          pendingPage: await page('pending'),
        };
      };
      const old = await seed();
      t.clock.advance({ days: 2 });
      const recent = await seed();
      // The old rows are now 90 days and a minute old, the recent ones 88 days.
      t.clock.advance({ days: 88, minutes: 1 });
      owner.jwt = await login(t, owner.login);

      await t.get(JobQueue).enqueue(JobName.AlertsPrune, {}, { jobId: 'prune-test' });
      const exists = async (ids: Awaited<ReturnType<typeof seed>>) => {
        const [row]: Array<{
          deliveries: number;
          records: number;
          attempts: number;
          events: number;
          pages: number;
          page_records: number;
        }> = await db.query(
          `SELECT (SELECT count(*)::int FROM webhook_delivery WHERE id = $1) AS deliveries,
                    (SELECT count(*)::int FROM delivery WHERE id = $1) AS records,
                    (SELECT count(*)::int FROM delivery_attempt WHERE delivery_id = $1) AS attempts,
                    (SELECT count(*)::int FROM alert_event WHERE id = $2) AS events,
                    (SELECT count(*)::int FROM escalation_page WHERE id = ANY ($3::uuid[])) AS pages,
                    (SELECT count(*)::int FROM delivery WHERE id = ANY ($3::uuid[])) AS page_records`,
          [ids.delivery, ids.event, [ids.sentPage, ids.pendingPage]],
        );
        return row;
      };
      await eventually(
        () => exists(old),
        (row) => row.deliveries === 0 && row.events === 0 && row.pages === 1,
        'the prune job to remove the old rows',
      );
      // A page still pending is delivery work, however old.
      expect(await exists(old)).toEqual({
        deliveries: 0,
        records: 0,
        attempts: 0,
        events: 0,
        pages: 1,
        page_records: 1,
      });
      expect(await exists(recent)).toEqual({
        deliveries: 1,
        records: 1,
        attempts: 1,
        events: 1,
        pages: 2,
        page_records: 2,
      });
      const listed = await deliveries(hook.id);
      expect(listed.data.map((d) => d.id)).toEqual([recent.delivery]);
    });
  });
});
