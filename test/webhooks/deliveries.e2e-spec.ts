import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WEBHOOK_USER_AGENT } from '@platform/alerting';
import { JobName, JobQueue, QueueName } from '@platform/queue';
import { eventually, type TestApp } from '@platform/testing';
import {
  ORGANIZATION_WEBHOOK_POLICY,
  type OrganizationWebhookPolicy,
  WEBHOOKS_PRUNE_PATTERN,
  WEBHOOKS_PRUNE_SCHEDULER_ID,
  WebhookEvents,
} from '@platform/webhooks';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { bearer, type TestAccount } from '../support/identity.js';
import { webhooksApiApp } from './support.js';

/** Short backoff and few attempts, so retries and exhaustion happen within a test. */
const POLICY: OrganizationWebhookPolicy = {
  attempts: 3,
  backoffMs: 50,
  timeoutMs: 10_000,
  previousSecretGraceMs: 24 * 3_600_000,
};

type Delivery = {
  id: string;
  status: string;
  event: string;
  attempt_count: number;
  attempts: Array<Record<string, unknown>>;
} & Record<string, unknown>;

describe('organization webhooks: signed outbound deliveries of app and cluster events', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let owner: TestAccount;
  let stranger: TestAccount;
  let sequence = 0;

  /** Creates a webhook of `account`'s organization and trusts its signing secret. */
  const webhook = async (account = owner) => {
    const res = await t
      .request()
      .post('/webhooks')
      .set(bearer(account.jwt))
      .send({ webhook: { name: `hook ${++sequence}`, url: receiver.url(`/hooks/${sequence}`) } })
      .expect(201);
    receiver.secrets.push(res.body.data.signing_secret as string);
    return res.body.data as { id: string; signing_secret: string };
  };
  const emit = (data: Record<string, unknown>, organizationId = owner.organizationId) =>
    t.get(WebhookEvents).emit(organizationId, 'cluster.ready', data);
  /** An organization of its own, so an event reaches only the webhooks a test made. */
  const organization = () => seedAccount(t, `owner${++sequence}@deliveries.example`);
  const deliveries = async (id: string, jwt = owner.jwt) =>
    (await t.request().get(`/webhooks/${id}/deliveries`).set(bearer(jwt)).expect(200)).body as {
      data: Delivery[];
      metadata: { total: number };
    };
  const settled = (id: string, jwt = owner.jwt) =>
    eventually(
      async () => (await deliveries(id, jwt)).data,
      (items) => items.length === 1 && items.every((d) => d.status !== 'pending'),
      "the webhook's deliveries",
    );

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await webhooksApiApp({
      withWorker: true,
      // The receivers listen on 127.0.0.1.
      config: { outboundAllowPrivateNetworks: true },
      override: (builder) => builder.overrideProvider(ORGANIZATION_WEBHOOK_POLICY).useValue(POLICY),
    });
    owner = await seedAccount(t, 'owner@deliveries.example');
    stranger = await seedAccount(t, 'stranger@deliveries.example');
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  describe('with the clock near real time (receivers check the signed timestamp)', () => {
    it('delivers an event to every webhook of the organization, signed, and records the attempt', async () => {
      const first = await webhook();
      const second = await webhook();
      const theirs = await webhook(stranger);
      const at = t.clock.now();
      const ids = await emit({ cluster: { id: 'c-1', name: 'prod' } });
      expect(ids).toHaveLength(2);

      const [delivery] = await settled(first.id);
      const [got] = receiver.byId(delivery.id);
      expect(got.verifiedBy).toEqual([first.signing_secret]);
      expect(got.status).toBe(200);
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toBe(WEBHOOK_USER_AGENT);
      expect(got.headers['webhook-id']).toBe(delivery.id);
      expect(got.headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
      expect(got.headers['webhook-signature']).toBe(
        new Webhook(first.signing_secret).sign(delivery.id, at, got.body),
      );
      const payload = {
        type: 'cluster.ready',
        timestamp: at.toISOString(),
        data: { cluster: { id: 'c-1', name: 'prod' } },
      };
      expect(got.json).toEqual(payload);
      expect(Object.keys(got.json)).toEqual(['type', 'timestamp', 'data']);
      expect(delivery).toEqual({
        id: delivery.id,
        webhook_id: first.id,
        event: 'cluster.ready',
        status: 'succeeded',
        attempt_count: 1,
        last_attempt_at: at.toISOString(),
        next_attempt_at: null,
        created_at: at.toISOString(),
        payload,
        attempts: [
          {
            attempt: 1,
            started_at: at.toISOString(),
            response_status: 200,
            response_body: null,
            error: null,
            duration_ms: expect.any(Number),
          },
        ],
      });
      const [other] = await settled(second.id);
      expect(receiver.byId(other.id)[0].verifiedBy).toEqual([second.signing_secret]);
      // Another organization's webhook gets nothing, and an organization without webhooks
      // makes no deliveries.
      expect((await deliveries(theirs.id, stranger.jwt)).metadata.total).toBe(0);
      expect(await emit({ server: { id: 's-1' } }, (await organization()).organizationId)).toEqual(
        [],
      );
    });

    it('retries after a 500 with the same webhook-id and records both attempts', async () => {
      const org = await organization();
      const hook = await webhook(org);
      receiver.answer(500);
      await emit({ cluster: { id: 'c-2' } }, org.organizationId);
      const [delivery] = await settled(hook.id, org.jwt);
      const got = receiver.byId(delivery.id);
      expect(got.map((r) => r.status)).toEqual([500, 200]);
      expect(got[1].body).toBe(got[0].body);
      expect(got.map((r) => r.verifiedBy)).toEqual([[hook.signing_secret], [hook.signing_secret]]);
      expect(delivery).toMatchObject({
        status: 'succeeded',
        attempt_count: 2,
        next_attempt_at: null,
      });
      expect(
        delivery.attempts.map((a) => [a.attempt, a.response_status, a.response_body, a.error]),
      ).toEqual([
        [1, 500, 'answer 500', 'receiver answered 500'],
        [2, 200, null, null],
      ]);
      // The delivery record behind the answer: one delivery, an attempt row per attempt.
      expect(
        await t.get(DataSource).query(
          `SELECT source, channel, status, reason, attempts, finished_at IS NOT NULL AS finished
             FROM delivery WHERE id = $1`,
          [delivery.id],
        ),
      ).toEqual([
        {
          source: 'organization_webhook',
          channel: 'webhook',
          status: 'sent',
          reason: null,
          attempts: 2,
          finished: true,
        },
      ]);
      expect(
        await t.get(DataSource).query(
          `SELECT attempt, outcome, reason, response_status FROM delivery_attempt
            WHERE delivery_id = $1 ORDER BY attempt`,
          [delivery.id],
        ),
      ).toEqual([
        { attempt: 1, outcome: 'failed', reason: 'receiver answered 500', response_status: 500 },
        { attempt: 2, outcome: 'sent', reason: null, response_status: 200 },
      ]);
      // Receivers' answers are for those who may edit the webhook.
      const viewer = await seedMember(t, org, `viewer${++sequence}@deliveries.example`, 'viewer');
      const seen = (await deliveries(hook.id, viewer.jwt)).data[0];
      expect(seen.attempts.map((a) => a.response_body)).toEqual([null, null]);
    });

    it('marks a delivery failed after its last attempt', async () => {
      const org = await organization();
      const hook = await webhook(org);
      receiver.answer(503, 502, 500);
      await emit({ cluster: { id: 'c-3' } }, org.organizationId);
      const [delivery] = await settled(hook.id, org.jwt);
      expect(delivery).toMatchObject({ status: 'failed', attempt_count: 3, next_attempt_at: null });
      expect(delivery.attempts.map((a) => a.response_status)).toEqual([503, 502, 500]);
    });

    it('signs with both signing secrets for a day after a rotation', async () => {
      const org = await organization();
      const hook = await webhook(org);
      const rotated = await t
        .request()
        .post(`/webhooks/${hook.id}/rotate_signing_secret`)
        .set(bearer(org.jwt))
        .expect(200);
      const secret = rotated.body.data.signing_secret as string;
      receiver.secrets.push(secret);
      await emit({ cluster: { id: 'c-4' } }, org.organizationId);
      const [delivery] = await settled(hook.id, org.jwt);
      const [got] = receiver.byId(delivery.id);
      expect(got.verifiedBy.sort()).toEqual([hook.signing_secret, secret].sort());
    });

    it('deleting a webhook deletes its deliveries, their records and attempts', async () => {
      const org = await organization();
      const hook = await webhook(org);
      await emit({ cluster: { id: 'c-5' } }, org.organizationId);
      const [delivery] = await settled(hook.id, org.jwt);
      const records = () =>
        t.get(DataSource).query(
          `SELECT 'delivery' AS row FROM delivery WHERE id = $1
           UNION ALL SELECT 'delivery_attempt' FROM delivery_attempt WHERE delivery_id = $1
           UNION ALL SELECT 'organization_webhook_delivery' FROM organization_webhook_delivery
                      WHERE id = $1
           ORDER BY 1`,
          [delivery.id],
        );
      expect(await records()).toEqual([
        { row: 'delivery' },
        { row: 'delivery_attempt' },
        { row: 'organization_webhook_delivery' },
      ]);
      await t.request().delete(`/webhooks/${hook.id}`).set(bearer(org.jwt)).expect(204);
      expect(await records()).toEqual([]);
    });
  });

  it('prunes deliveries and receipts older than 90 days, in a daily job', async () => {
    const scheduler = await t
      .get(JobQueue)
      .queue(QueueName.Maintenance)
      .getJobScheduler(WEBHOOKS_PRUNE_SCHEDULER_ID);
    expect(scheduler).toMatchObject({
      name: JobName.OrganizationWebhooksPrune,
      pattern: WEBHOOKS_PRUNE_PATTERN,
    });
    const hook = await webhook();
    const db = t.get(DataSource);
    const seed = async () => {
      const at = t.clock.now();
      const [delivery]: Array<{ id: string }> = await db.query(
        `INSERT INTO organization_webhook_delivery
           (webhook_id, organization_id, event, payload, created_at)
         VALUES ($1, $2, 'app.deployed', '{}', $3) RETURNING id`,
        [hook.id, owner.organizationId, at],
      );
      await db.query(
        `INSERT INTO delivery (id, source, channel, status, attempts, created_at, due_at,
                               last_attempt_at, finished_at)
         VALUES ($1, 'organization_webhook', 'webhook', 'sent', 1, $2, $2, $2, $2)`,
        [delivery.id, at],
      );
      await db.query(
        `INSERT INTO delivery_attempt (delivery_id, attempt, started_at, duration_ms, outcome,
                                       response_status)
         VALUES ($1, 1, $2, 5, 'sent', 200)`,
        [delivery.id, at],
      );
      const [receipt]: Array<{ id: string }> = await db.query(
        `INSERT INTO organization_webhook_receipt (webhook_id, received_at, outcome)
         VALUES ($1, $2, 'no_match') RETURNING id`,
        [hook.id, at],
      );
      return { delivery: delivery.id, receipt: receipt.id };
    };
    const exists = async (ids: { delivery: string; receipt: string }) =>
      (
        await db.query<Array<{ n: number }>>(
          `SELECT (SELECT count(*) FROM organization_webhook_delivery WHERE id = $1)
                + (SELECT count(*) FROM delivery WHERE id = $1)
                + (SELECT count(*) FROM delivery_attempt WHERE delivery_id = $1)
                + (SELECT count(*) FROM organization_webhook_receipt WHERE id = $2) AS n`,
          [ids.delivery, ids.receipt],
        )
      )[0].n;
    const old = await seed();
    t.clock.advance({ days: 2 });
    const recent = await seed();
    t.clock.advance({ days: 88, minutes: 1 });
    await t.get(JobQueue).enqueue(JobName.OrganizationWebhooksPrune, {}, { jobId: 'prune-test' });
    await eventually(
      () => exists(old),
      (n) => Number(n) === 0,
      'the old rows to be pruned',
    );
    expect(Number(await exists(recent))).toBe(4);
  });
});
