import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { QueueName } from '@platform/queue';
import { PrivateRedis, eventually } from '@platform/testing';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { SWEEP_GRACE_MS } from '../../libs/alerting/src/dispatch/alert-dispatch-sweeper.js';
import { alertsProject } from '../support/alerting.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, type TestAccount } from '../support/identity.js';

/**
 * How often the waits look: every 100 ms, as these tests were written for. A service restarted
 * the moment a faster look saw its condition can be down for less time than a process takes to
 * confirm the outage, and an outage nobody confirmed is neither logged nor followed by the
 * start-up tasks that run again when the service is back.
 */
const RESTART_POLL_MS = 100;

const PAYLOADS = 40;
const ALERTS_PER_PAYLOAD = 5;
const ALERTS = PAYLOADS * ALERTS_PER_PAYLOAD;

/**
 * Redis restarted in the middle of a burst of first firings, on a Redis of the test's own
 * that keeps nothing on disk: every queued dispatch job is gone with it. Ingest keeps
 * accepting alerts throughout (the alerts are in PostgreSQL); once Redis is back, the dispatch
 * outbox finds what was never dispatched, and each alert notifies its route's member exactly
 * once: none lost, none twice. The job schedules the restart erased are set up again.
 */
describe('Redis restarted mid-burst', () => {
  let redis: PrivateRedis;
  let t: MailingTestApp;
  let owner: TestAccount;
  let projectId: string;
  let token: string;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    t = await createMailingApiTestApp({
      config: { redisUrl: redis.url(), alertDispatchSweepIntervalMs: 200 },
    });
    owner = await createAccount(t, t.sink, 'owner@restart.example', 'Restart Org');
    projectId = await alertsProject(t, owner);
    await t
      .request()
      .post(`/projects/${projectId}/alert_routes`)
      .set(bearer(owner.jwt))
      .send({ priority: 1, in_app_target_type: 'member', in_app_target_member_id: owner.accountId })
      .expect(201);
    token = (
      await t
        .request()
        .post(`/projects/${projectId}/alert_ingest_tokens`)
        .set(bearer(owner.jwt))
        .expect(201)
    ).body.data.token as string;
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  const ingest = (payload: number) =>
    t
      .request()
      .post(`/projects/${projectId}/alerts`)
      .set(bearer(token))
      .send({
        version: '4',
        status: 'firing',
        alerts: Array.from({ length: ALERTS_PER_PAYLOAD }, (_, n) => ({
          status: 'firing',
          fingerprint: `burst-${payload}-${n}`,
          labels: { alertname: 'Burst', severity: 'critical', instance: `${payload}-${n}` },
          annotations: { summary: `burst ${payload}.${n}` },
          startsAt: t.clock.now().toISOString(),
        })),
      });

  /** The in-app alert notifications the owner got, by alert id. */
  const notified = async () =>
    (
      await t.get(DataSource).query<Array<{ alert_id: string; count: string }>>(
        `SELECT payload->>'alert_id' AS alert_id, count(*) AS count FROM notification
            WHERE account_id = $1 AND category_key = 'alert_escalation'
            GROUP BY 1`,
        [owner.accountId],
      )
    ).map((row) => [row.alert_id, Number(row.count)] as const);

  it('notifies every alert of the burst exactly once, however much Redis lost', async () => {
    const statuses: number[] = [];
    let sent = 0;
    const sender = async () => {
      while (sent < PAYLOADS) statuses.push((await ingest(sent++)).status);
    };
    const senders = Array.from({ length: 4 }, sender);
    await eventually(async () => statuses.length >= PAYLOADS / 4, {
      what: 'the first quarter',
      timeoutMs: 60_000,
      intervalMs: RESTART_POLL_MS,
    });
    await redis.stop();
    await eventually(async () => statuses.length >= PAYLOADS / 2, {
      what: 'ingests during the outage',
      timeoutMs: 30_000,
      intervalMs: RESTART_POLL_MS,
    });
    await redis.start();
    await Promise.all(senders);
    // Alerts are accepted whatever Redis does: ingest needs only PostgreSQL.
    expect(statuses).toEqual(Array.from({ length: PAYLOADS }, () => 200));

    // The dispatch outbox takes what the ingest's own jobs did not deliver once it is older
    // than its grace period.
    t.clock.advance({ ms: SWEEP_GRACE_MS + 1000 });
    await eventually(async () => (await notified()).length === ALERTS, {
      what: `${ALERTS} alerts notified`,
      timeoutMs: 60_000,
    });
    const counts = await notified();
    expect(counts).toHaveLength(ALERTS);
    expect(counts.every(([, count]) => count === 1)).toBe(true);

    // A restarted Redis is empty; the schedules the worker keeps there are made again.
    const digests = new Queue(QueueName.Digests, {
      connection: { url: redis.url() },
      prefix: t.config.redisPrefix,
    });
    try {
      await eventually(
        async () => (await digests.getJobSchedulers()).some((s) => s.key === 'digest-sweep'),
        { what: 'the digest schedule', timeoutMs: 60_000, intervalMs: RESTART_POLL_MS },
      );
    } finally {
      await digests.close();
    }
  }, 120_000);
});
