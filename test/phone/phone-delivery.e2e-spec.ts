import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PhoneDispatcher } from '../../libs/notifications/src/phone/index.js';
import { JobQueue, QueueName } from '@platform/queue';
import { FakeTwilio, type TestApp, eventually } from '@platform/testing';
import type { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { createAccount } from '../support/identity.js';

const NUMBER = '+4915123456789';

interface DeliveryRow {
  status: string;
  reason: string | null;
  attempts: number;
  provider_ref: string | null;
  finished_at: Date | null;
}

/** notify()'s ledger row and its delivery, as notify() writes them. */
async function newDelivery(
  t: TestApp,
  accountId: string,
  channel: 'sms' | 'phone',
): Promise<string> {
  const now = t.clock.now();
  const [row] = await t.get(DataSource).query(
    `WITH ledger AS (
       INSERT INTO notification_delivery (account_id) VALUES ($1) RETURNING id
     ), record AS (
       INSERT INTO delivery (id, source, channel, status, created_at, due_at)
       SELECT id, 'notification', $2, 'pending', $3, $3 FROM ledger
     )
     SELECT id FROM ledger`,
    [accountId, channel, now],
  );
  return row.id as string;
}

const delivery = (t: TestApp, id: string) => async (): Promise<DeliveryRow> => {
  const rows: DeliveryRow[] = await t
    .get(DataSource)
    .query(
      `SELECT status, reason, attempts, provider_ref, finished_at FROM delivery WHERE id = $1`,
      [id],
    );
  return rows[0];
};

/** The delivery's attempt rows, in order. */
const attempts = async (t: TestApp, id: string) =>
  (await t.get(DataSource).query(
    `SELECT attempt, outcome, reason, response_status FROM delivery_attempt
        WHERE delivery_id = $1 ORDER BY attempt`,
    [id],
  )) as Array<{ attempt: number; outcome: string; reason: string | null }>;

const job = (t: TestApp, id: string) => async (): Promise<Job | undefined> =>
  t.get(JobQueue).queue(QueueName.Deliveries).getJob(id);

describe('phone and SMS delivery through the worker', () => {
  describe('with a provider', () => {
    let t: MailingTestApp;
    let fake: FakeTwilio;
    let accountId: string;

    beforeAll(async () => {
      fake = await FakeTwilio.start();
      t = await createMailingApiTestApp({
        config: {
          phone: {
            apiUrl: fake.url,
            accountSid: 'AC_test',
            authToken: 'secret',
            from: '+15550000000',
          },
        },
      });
      accountId = (await createAccount(t, t.sink, 'pager@example.com')).accountId;
    });

    afterAll(async () => {
      await t?.close();
      await fake?.close();
    });

    it('places a call that reads the text, and records it sent', async () => {
      const id = await newDelivery(t, accountId, 'phone');
      t.clock.advance({ minutes: 1 });
      await t.get(PhoneDispatcher).call(NUMBER, 'Alert: disk <sda> is 95% full & rising', id);

      const call = await fake.waitFor((r) => r.kind === 'call');
      expect(call).toMatchObject({
        kind: 'call',
        to: NUMBER,
        from: '+15550000000',
        twiml: '<Response><Say>Alert: disk &lt;sda&gt; is 95% full &amp; rising</Say></Response>',
        auth: { username: 'AC_test', password: 'secret' },
      });
      const row = await eventually(delivery(t, id), (r) => r.status !== 'pending');
      expect(row).toMatchObject({ status: 'sent', reason: null, attempts: 1 });
      expect(row.provider_ref).toBe(call.sid);
      expect(new Date(row.finished_at!).toISOString()).toBe(t.clock.now().toISOString());
      expect(await attempts(t, id)).toEqual([
        { attempt: 1, outcome: 'sent', reason: null, response_status: null },
      ]);
    });

    it('retries after a provider failure until the SMS is accepted', async () => {
      const id = await newDelivery(t, accountId, 'sms');
      fake.failNext(1);
      const jobId = await t.get(PhoneDispatcher).sms(NUMBER, 'Your alert was acknowledged', id);

      const afterFailure = await eventually(delivery(t, id), (r) => r.attempts >= 1);
      expect(afterFailure).toMatchObject({
        status: 'pending',
        reason: 'phone provider answered 500: Internal Server Error',
      });

      const sms = await fake.waitFor(
        (r) => r.kind === 'sms' && 'body' in r && r.body === 'Your alert was acknowledged',
        15_000,
      );
      expect(sms).toMatchObject({ to: NUMBER, from: '+15550000000' });
      expect(fake.failedRequests).toBe(1);
      const row = await eventually(delivery(t, id), (r) => r.status === 'sent');
      expect(row).toMatchObject({ status: 'sent', reason: null, attempts: 2 });
      expect(await attempts(t, id)).toEqual([
        {
          attempt: 1,
          outcome: 'failed',
          reason: 'phone provider answered 500: Internal Server Error',
          response_status: null,
        },
        { attempt: 2, outcome: 'sent', reason: null, response_status: null },
      ]);

      const done = await eventually(job(t, jobId), (j) => j?.finishedOn !== undefined);
      expect(done!.opts).toMatchObject({ attempts: 5, backoff: { type: 'exponential' } });
      expect(done!.attemptsMade).toBe(2);
    }, 30_000);
  });

  describe('without a provider', () => {
    let t: MailingTestApp;
    let accountId: string;

    let jwt: string;

    beforeAll(async () => {
      t = await createMailingApiTestApp({ config: { phone: null } });
      ({ accountId, jwt } = await createAccount(t, t.sink, 'nophone@example.com'));
    });

    it('refuses to start a verification whose code could never arrive', async () => {
      const res = await t
        .request()
        .put('/accounts/me/phone')
        .set('Authorization', `Bearer ${jwt}`)
        .send({ phone_number: NUMBER })
        .expect(503);
      expect(res.body).toMatchObject({ code: 'phone_provider_not_configured', retryable: true });
      const pending = (await t
        .get(DataSource)
        .query('SELECT 1 FROM phone_verification WHERE account_id = $1', [accountId])) as unknown[];
      expect(pending).toHaveLength(0);
    });

    afterAll(async () => {
      await t?.close();
    });

    it('records the delivery failed with phone_provider_not_configured and does not retry', async () => {
      for (const channel of ['sms', 'phone'] as const) {
        const id = await newDelivery(t, accountId, channel);
        const dispatcher = t.get(PhoneDispatcher);
        const jobId =
          channel === 'sms'
            ? await dispatcher.sms(NUMBER, 'hello', id)
            : await dispatcher.call(NUMBER, 'hello', id);

        const row = await eventually(delivery(t, id), (r) => r.status !== 'pending');
        expect(row).toMatchObject({
          status: 'failed',
          reason: 'phone_provider_not_configured',
          attempts: 1,
        });
        expect(await attempts(t, id)).toEqual([
          {
            attempt: 1,
            outcome: 'failed',
            reason: 'phone_provider_not_configured',
            response_status: null,
          },
        ]);
        const done = await eventually(job(t, jobId), (j) => j?.finishedOn !== undefined);
        expect(await done!.getState()).toBe('completed');
        expect(done!.attemptsMade).toBe(1);
        expect(done!.returnvalue).toEqual({
          outcome: 'failed',
          reason: 'phone_provider_not_configured',
        });
      }
    });
  });
});
