import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { JobName, type JobPayloads, JobQueue, QueueName } from '@platform/queue';
import { PrivateRedis, type TestApp, eventually } from '@platform/testing';
import { DataSource } from 'typeorm';
import {
  AlertDispatchSweeper,
  SWEEP_GIVE_UP_MS,
  SWEEP_GRACE_MS,
  SWEEP_RETRY_MS,
} from '../../libs/alerting/src/dispatch/alert-dispatch-sweeper.js';
import { TestAlertSweeper } from '../../libs/alerting/src/test-alerts/test-alert-sweeper.js';
import {
  createApiTestApp,
  createMailingApiTestApp,
  type MailingTestApp,
} from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { bearer, createAccount, PASSWORD, type TestAccount } from '../support/identity.js';

import { type ReceivedWebhook, WebhookReceiver } from './endpoints-receiver.js';

type Body = Record<string, unknown>;

interface OutboxProject {
  id: string;
  token: string;
}

/** The Redis user of the API replica that ingests; the worker connects as the default user. */
const API_USER = 'api';

/**
 * The dispatch outbox against a Redis of this file's own. An API replica (no worker) ingests
 * as the Redis user `api`; an outage refuses that user's writes, so its enqueue fails after
 * the commit exactly as an unreachable Redis makes it fail, while the worker app (processors
 * and sweepers, default user) keeps running. The sweep is off by its interval (as in every
 * test app) and run here by calling `sweep()` on the clock the test moves, except where a
 * test shows the timer doing it.
 */
describe('alert dispatch outbox', () => {
  let redis: PrivateRedis;
  let receiver: WebhookReceiver;
  let t: MailingTestApp;
  let replica: TestApp;
  let db: DataSource;
  let sweeper: AlertDispatchSweeper;
  let owner: TestAccount;
  let sequence = 0;

  /** A project whose route notifies the owner in-app and posts both events to the receiver. */
  const project = async (): Promise<OutboxProject> => {
    const id = await alertsProject(t, owner, `outbox ${++sequence}`);
    const endpoint = await t
      .request()
      .post(`/projects/${id}/notification_endpoints`)
      .set(bearer(owner.jwt))
      .send({ name: 'hook', url: receiver.url(), events: ['alert_firing', 'alert_resolved'] })
      .expect(201);
    await t
      .request()
      .post(`/projects/${id}/alert_routes`)
      .set(bearer(owner.jwt))
      .send({
        priority: 1,
        in_app_target_type: 'member',
        in_app_target_member_id: owner.accountId,
        notification_endpoint_ids: [endpoint.body.data.id],
      })
      .expect(201);
    // The tests move the clock hours ahead: minting then needs the password as well.
    const minted = await t
      .request()
      .post(`/projects/${id}/alert_ingest_tokens`)
      .set(bearer(owner.jwt))
      .send({ current_password: PASSWORD })
      .expect(201);
    return { id, token: minted.body.data.token as string };
  };

  /** Posts one alert to the replica's ingest endpoint; answers its id and `data`. */
  const ingest = async (p: OutboxProject, fingerprint: string, status: 'firing' | 'resolved') => {
    const now = t.clock.now().toISOString();
    const res = await replica
      .request()
      .post(`/projects/${p.id}/alerts`)
      .set(bearer(p.token))
      .send({
        version: '4',
        status,
        receiver: 'platform',
        alerts: [
          {
            status,
            labels: { alertname: 'DiskFull', severity: 'critical', instance: fingerprint },
            annotations: { summary: `${fingerprint} is full` },
            startsAt: now,
            endsAt: status === 'resolved' ? now : '0001-01-01T00:00:00Z',
            fingerprint,
          },
        ],
      })
      .expect(200);
    const [{ id }] = await db.query<Array<{ id: string }>>(
      'SELECT id FROM alert WHERE project_id = $1 AND fingerprint = $2',
      [p.id, fingerprint],
    );
    return { alertId: id, data: res.body.data as Body };
  };

  /** Runs `work` while Redis refuses the API replica's writes (except the `writable` keys). */
  const outage = async <T>(work: () => Promise<T>, writable: string[] = []): Promise<T> => {
    await redis.refuseWrites(API_USER, writable);
    try {
      return await work();
    } finally {
      await redis.allowWrites(API_USER);
    }
  };

  const inApp = async (alertId: string) =>
    (
      (await t.request().get('/notifications?limit=100').set(bearer(owner.jwt)).expect(200)).body
        .data as Array<{ category: string; payload: Body }>
    ).filter((n) => n.category === 'alert_escalation' && n.payload.alert_id === alertId);
  const isWebhook = (alertId: string, type: string) => (r: ReceivedWebhook) =>
    r.json.type === type && (r.json.data as { alert: Body }).alert.id === alertId;
  const webhooks = (alertId: string, type: string) =>
    receiver.received.items.filter(isWebhook(alertId, type));
  const webhook = (alertId: string, type: string) =>
    receiver.received.waitFor(isWebhook(alertId, type), 20_000);
  /** The deliveries dispatch wrote for the alert, by event. */
  const deliveries = async (alertId: string) =>
    (
      await db.query<Array<{ event: string }>>(
        'SELECT event FROM webhook_delivery WHERE alert_id = $1 ORDER BY created_at, event',
        [alertId],
      )
    ).map((d) => d.event);
  const owed = () =>
    db.query<Array<{ event_id: string; alert_id: string; kind: string }>>(
      'SELECT event_id, alert_id, kind FROM alert_dispatch_owed ORDER BY event_at, event_id',
    );
  const mark = async () =>
    (
      await db.query<Array<{ swept_at: Date | null; swept_event_id: string | null }>>(
        'SELECT swept_at, swept_event_id FROM alert_dispatch_sweep',
      )
    )[0];
  const eventOf = async (alertId: string, kind: string) =>
    (
      await db.query<Array<{ id: string; created_at: Date }>>(
        'SELECT id, created_at FROM alert_event WHERE alert_id = $1 AND kind = $2',
        [alertId, kind],
      )
    )[0];
  const claim = async (alertId: string) =>
    (
      await db.query<Array<{ outcome: string; resolved_at: Date | null }>>(
        'SELECT outcome, resolved_at FROM alert_dispatch WHERE alert_id = $1',
        [alertId],
      )
    )[0];
  const pastGrace = () => t.clock.advance({ ms: SWEEP_GRACE_MS });
  const nextAttempt = () => t.clock.advance({ ms: SWEEP_RETRY_MS });
  const dispatchQueue = () => t.get(JobQueue).queue(QueueName.Escalations);
  /** Enqueues a dispatch job of its own and waits until the worker completed it. */
  const runDispatchJob = async (data: JobPayloads[JobName.AlertDispatch]) => {
    const id = await t.get(JobQueue).enqueue(JobName.AlertDispatch, data);
    await eventually(
      async () => (await (await dispatchQueue().getJob(id))?.getState()) === 'completed',
      `dispatch job ${id}`,
    );
  };

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    await redis.addUser(API_USER);
    receiver = await WebhookReceiver.start();
    receiver.verifying = false;
    t = await createMailingApiTestApp({ config: { redisUrl: redis.url() } });
    replica = await createApiTestApp({ shareWith: t, config: { redisUrl: redis.url(API_USER) } });
    db = t.get(DataSource);
    sweeper = t.get(AlertDispatchSweeper);
    owner = await createAccount(t, t.sink, 'owner@example.com', 'Outbox Org');
  });

  afterAll(async () => {
    await replica?.close();
    await t?.close();
    await receiver?.close();
    await redis?.stop();
  });

  it('accepts an ingest whose dispatch cannot be enqueued, and the sweep sends its first firing once', async () => {
    const p = await project();
    const { alertId, data } = await outage(() => ingest(p, 'disk-1', 'firing'));
    expect(data).toEqual({ processed: 1, errors: [] });
    expect(await dispatchQueue().getJobs(['wait', 'delayed', 'active'])).toEqual([]);
    expect(await claim(alertId)).toBeUndefined();

    pastGrace();
    await sweeper.sweep();
    const fired = await eventOf(alertId, 'fired');
    expect(await owed()).toEqual([{ event_id: fired.id, alert_id: alertId, kind: 'fired' }]);
    await webhook(alertId, 'alert_firing');
    expect(await inApp(alertId)).toHaveLength(1);
    await eventually(async () => await claim(alertId), 'the firing claim');
    expect(await claim(alertId)).toEqual({ outcome: 'notified', resolved_at: null });

    // Its next attempt finds it claimed: dropped, nothing enqueued, nothing sent again.
    nextAttempt();
    await sweeper.sweep();
    expect(await owed()).toEqual([]);
    await runDispatchJob({ projectId: p.id, fired: [alertId], resolved: [] });
    expect(await inApp(alertId)).toHaveLength(1);
    expect(await deliveries(alertId)).toEqual(['alert_firing']);
    expect(webhooks(alertId, 'alert_firing')).toHaveLength(1);
  });

  it('sends a resolution whose dispatch was lost once, and claims it', async () => {
    const p = await project();
    const { alertId } = await ingest(p, 'disk-2', 'firing');
    await webhook(alertId, 'alert_firing');
    t.clock.advance({ minutes: 1 });
    const { data } = await outage(() => ingest(p, 'disk-2', 'resolved'));
    expect(data).toEqual({ processed: 1, errors: [] });
    expect((await claim(alertId)).resolved_at).toBeNull();

    pastGrace();
    await sweeper.sweep();
    const resolved = await eventOf(alertId, 'resolved');
    expect(await owed()).toEqual([{ event_id: resolved.id, alert_id: alertId, kind: 'resolved' }]);
    await webhook(alertId, 'alert_resolved');
    // The claim commits once the fan-out is handed over, which may be after the POST arrived.
    await eventually(async () => (await claim(alertId)).resolved_at, 'the resolution claim');

    nextAttempt();
    await Promise.all([sweeper.sweep(), sweeper.sweep()]);
    expect(await owed()).toEqual([]);
    await runDispatchJob({ projectId: p.id, fired: [], resolved: [alertId] });
    expect(await deliveries(alertId)).toEqual(['alert_firing', 'alert_resolved']);
    expect(webhooks(alertId, 'alert_resolved')).toHaveLength(1);
    expect(webhooks(alertId, 'alert_firing')).toHaveLength(1);
  });

  it('enqueues an owed event under one job id however often it is swept while the job waits', async () => {
    const p = await project();
    const { alertId } = await outage(() => ingest(p, 'disk-3', 'firing'));
    const fired = await eventOf(alertId, 'fired');
    const queue = dispatchQueue();
    await queue.pause();
    try {
      pastGrace();
      await sweeper.sweep();
      nextAttempt();
      await sweeper.sweep();
      await sweeper.sweep();
      const waiting = (await queue.getJobs(['wait'])).filter(
        (job) => job.name === String(JobName.AlertDispatch),
      );
      expect(waiting.map((job) => ({ id: job.id, data: job.data as unknown }))).toEqual([
        {
          id: AlertDispatchSweeper.jobId(fired.id),
          data: { projectId: p.id, fired: [alertId], resolved: [] },
        },
      ]);
    } finally {
      await queue.resume();
    }
    await webhook(alertId, 'alert_firing');
    expect(await inApp(alertId)).toHaveLength(1);
    nextAttempt();
    await sweeper.sweep();
    expect(await owed()).toEqual([]);
    expect(await deliveries(alertId)).toEqual(['alert_firing']);
  });

  it('sends nothing for an alert that resolved before the sweep found its firing', async () => {
    const p = await project();
    const { alertId } = await outage(async () => {
      const firing = await ingest(p, 'disk-4', 'firing');
      t.clock.advance({ seconds: 10 });
      await ingest(p, 'disk-4', 'resolved');
      return firing;
    });
    pastGrace();
    await sweeper.sweep();
    const resolved = await eventOf(alertId, 'resolved');
    expect(await mark()).toEqual({ swept_at: resolved.created_at, swept_event_id: resolved.id });
    expect(await owed()).toEqual([]);
    expect(await claim(alertId)).toBeUndefined();
    expect(await deliveries(alertId)).toEqual([]);
    expect(await inApp(alertId)).toEqual([]);
  });

  it('leaves events younger than the grace period to the ingest, and takes them once older', async () => {
    const p = await project();
    const before = await mark();
    const { alertId } = await outage(() => ingest(p, 'disk-5', 'firing'));
    const fired = await eventOf(alertId, 'fired');

    t.clock.advance({ ms: SWEEP_GRACE_MS - 1 });
    await sweeper.sweep();
    expect(await mark()).toEqual(before);
    expect(await owed()).toEqual([]);

    t.clock.advance({ ms: 1 });
    await sweeper.sweep();
    expect(await mark()).toEqual({ swept_at: fired.created_at, swept_event_id: fired.id });
    expect(await owed()).toEqual([{ event_id: fired.id, alert_id: alertId, kind: 'fired' }]);
    await webhook(alertId, 'alert_firing');
  });

  it('keeps its mark in PostgreSQL: a new worker goes on from where the last one left', async () => {
    const p = await project();
    const { alertId: swept } = await ingest(p, 'disk-6', 'firing');
    await webhook(swept, 'alert_firing');
    pastGrace();
    await sweeper.sweep();
    const passed = await eventOf(swept, 'fired');
    expect(await mark()).toEqual({ swept_at: passed.created_at, swept_event_id: passed.id });

    // Two firings nobody dispatched: one dated before the mark (as if already swept), one after.
    const unclaimed = async (fingerprint: string, at: Date) => {
      const [{ id }] = await db.query<Array<{ id: string }>>(
        `INSERT INTO alert (project_id, fingerprint, status, severity, labels, starts_at,
                            last_received_at, created_at, updated_at)
         VALUES ($1, $2, 'firing', 'critical', $3, $4, $4, $4, $4) RETURNING id`,
        [p.id, fingerprint, JSON.stringify({ alertname: 'DiskFull', severity: 'critical' }), at],
      );
      await db.query(
        `INSERT INTO alert_event (alert_id, project_id, kind, created_at) VALUES ($1, $2, 'fired', $3)`,
        [id, p.id, at],
      );
      return id;
    };
    const behind = await unclaimed('disk-behind', new Date(passed.created_at.getTime() - 1000));
    const ahead = await unclaimed('disk-ahead', t.clock.now());
    t.clock.advance({ ms: SWEEP_GRACE_MS });

    const next = await createApiTestApp({
      shareWith: t,
      withWorker: true,
      config: { redisUrl: redis.url(), alertDispatchSweepIntervalMs: 100 },
    });
    try {
      await webhook(ahead, 'alert_firing');
      const aheadEvent = await eventOf(ahead, 'fired');
      expect(await mark()).toEqual({
        swept_at: aheadEvent.created_at,
        swept_event_id: aheadEvent.id,
      });
      expect(await inApp(ahead)).toHaveLength(1);
      expect(await claim(behind)).toBeUndefined();
      expect((await owed()).map((o) => o.alert_id)).not.toContain(behind);
      expect(await deliveries(behind)).toEqual([]);
    } finally {
      await next.close();
    }
  });

  it('creates a test alert whose jobs Redis refused, and the sweeps fire and resolve it', async () => {
    const p = await project();
    const created = await outage(
      async () =>
        (
          await replica
            .request()
            .post(`/projects/${p.id}/alerts/test`)
            .set(bearer(owner.jwt))
            .send({ labels: { instance: 'disk-7' } })
            .expect(201)
        ).body.data as Body & { id: string },
      // The throttle's window is kept in Redis too; only the queue is refused here.
      [`${replica.config.redisPrefix}:test-alerts:*`],
    );
    expect(await dispatchQueue().getJobs(['wait', 'delayed', 'active'])).toEqual([]);

    pastGrace();
    await sweeper.sweep();
    await webhook(created.id, 'alert_firing');
    expect(await inApp(created.id)).toHaveLength(1);

    t.clock.advance({ seconds: replica.config.testAlertAutoResolveSeconds });
    await t.get(TestAlertSweeper).sweep();
    await webhook(created.id, 'alert_resolved');
    expect(await deliveries(created.id)).toEqual(['alert_firing', 'alert_resolved']);
  });

  // Moves the clock a day on: keep it last.
  it('enqueues an owed event again once its job is gone, and gives it up a day after with a warning', async () => {
    const p = await project();
    const { alertId } = await outage(() => ingest(p, 'disk-8', 'firing'));
    const fired = await eventOf(alertId, 'fired');
    const jobId = AlertDispatchSweeper.jobId(fired.id);
    const queue = dispatchQueue();
    const warn = jest.spyOn(Logger.prototype, 'warn');
    await queue.pause();
    try {
      pastGrace();
      await sweeper.sweep();
      expect((await queue.getJob(jobId))?.data).toEqual({
        projectId: p.id,
        fired: [alertId],
        resolved: [],
      });
      // As a job that failed its last attempt is: removed, its event still owed.
      await queue.remove(jobId);
      await sweeper.sweep();
      expect(await queue.getJob(jobId)).toBeUndefined();
      nextAttempt();
      await sweeper.sweep();
      expect(await queue.getJob(jobId)).toBeDefined();
      await queue.remove(jobId);
      expect(await owed()).toEqual([{ event_id: fired.id, alert_id: alertId, kind: 'fired' }]);

      t.clock.advance({ ms: SWEEP_GIVE_UP_MS });
      await sweeper.sweep();
      expect(await owed()).toEqual([]);
      expect(await queue.getJob(jobId)).toBeUndefined();
      const warnings = warn.mock.calls.map(([message]) => String(message));
      expect(warnings).toContainEqual(
        `gave up 1 alert event(s) still not dispatched 24 h after they happened: fired ${fired.id} of alert ${alertId} (project ${p.id})`,
      );
      // The mark, left at that event, is a day old too: the scan starts a day back instead.
      expect(warnings).toContainEqual(
        `the dispatch sweep's mark is older than 24 h (${fired.created_at.toISOString()}): events before ${new Date(t.clock.nowMs() - SWEEP_GIVE_UP_MS).toISOString()} are not checked`,
      );
    } finally {
      warn.mockRestore();
      await queue.resume();
    }
    expect(await claim(alertId)).toBeUndefined();
    // The owner's session expired with the day; the notification center's table tells.
    const [{ count }] = await db.query<Array<{ count: number }>>(
      `SELECT count(*)::int AS count FROM notification WHERE payload->>'alert_id' = $1`,
      [alertId],
    );
    expect(count).toBe(0);
  });
});
