import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@platform/testing';
import { Injectable } from '@nestjs/common';
import { JobName, JobQueue, QueueName } from '@platform/queue';
import { messageIdLeft } from '@platform/mail';
import {
  DigestProcessor,
  DigestRepository,
  digestMessageKey,
  heldMessageKey,
  NotifyService,
} from '@platform/notifications';
import type { ReceivedMail } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, type TestAccount } from '../support/identity.js';

/** Fails to record the first flush after sending it, as a worker killed between the two would. */
@Injectable()
class CrashAfterSendDigestRepository extends DigestRepository {
  crashes = 1;

  override async markSent(
    accountId: string,
    ids: string[],
    now: Date,
    digest: boolean,
  ): Promise<void> {
    if (this.crashes > 0) {
      this.crashes -= 1;
      throw new Error('worker killed between send and mark');
    }
    return super.markSent(accountId, ids, now, digest);
  }
}

/** Not the default (900), so the scheduler is seen to follow DIGEST_FLUSH_INTERVAL_SECONDS. */
const FLUSH_INTERVAL_SECONDS = 1800;

describe('digests and held e-mail', () => {
  let t: MailingTestApp;
  let n = 0;

  beforeAll(async () => {
    t = await createMailingApiTestApp({
      config: { digestFlushIntervalSeconds: FLUSH_INTERVAL_SECONDS },
      override: (builder) =>
        builder.overrideProvider(DigestRepository).useClass(CrashAfterSendDigestRepository),
    });
    // The crash is for its own test; the others start with a repository that records at once.
    (t.get(DigestRepository) as CrashAfterSendDigestRepository).crashes = 0;
  });

  afterAll(async () => {
    await t.close();
  });

  async function account(schedule: Record<string, unknown>): Promise<TestAccount> {
    n += 1;
    const created = await createAccount(t, t.sink, `digest-${n}@digest.example`);
    await t
      .request()
      .patch('/notification_schedule')
      .set(bearer(created.jwt))
      .send(schedule)
      .expect(200);
    return created;
  }

  async function hold(target: TestAccount, subject: string): Promise<void> {
    await t
      .get(DataSource)
      .query(
        `INSERT INTO pending_email (account_id, category_key, subject, text, created_at) VALUES ($1, 'billing', $2, $3, $4)`,
        [target.accountId, subject, `Details of ${subject}`, t.clock.now()],
      );
  }

  const mailsTo = (target: TestAccount): ReceivedMail[] =>
    t.sink.messages.filter((m) => m.to.includes(target.login));

  async function sweepAndSettle(): Promise<void> {
    await t.get(DigestProcessor).sweep();
    const queue = t.get(JobQueue).queue(QueueName.Digests);
    for (let i = 0; i < 200; i += 1) {
      const counts = await queue.getJobCounts('waiting', 'active');
      if (counts.waiting + counts.active === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('schedules the sweep as a repeating job every DIGEST_FLUSH_INTERVAL_SECONDS', async () => {
    const queue = t.get(JobQueue).queue(QueueName.Digests);
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers).toEqual([
      expect.objectContaining({
        key: 'digest-sweep',
        name: JobName.DigestSweep,
        every: FLUSH_INTERVAL_SECONDS * 1000,
      }),
    ]);
  });

  it('enqueues one flush job per due account with retries and backoff', async () => {
    t.clock.set('2026-11-20T10:05:00Z');
    const fay = await account({ email_mode: 'hourly_digest' });
    await hold(fay, 'Retried invoice');
    const queue = t.get(JobQueue).queue(QueueName.Digests);
    await queue.pause();
    try {
      await t.get(DigestProcessor).sweep();
      const jobs = (await queue.getJobs(['waiting', 'prioritized'])).filter(
        (job) => (job.data as { accountId?: string }).accountId === fay.accountId,
      );
      const slot = Math.floor(t.clock.now().getTime() / (FLUSH_INTERVAL_SECONDS * 1000));
      expect(jobs.map((job) => [job.name, job.id])).toEqual([
        [JobName.DigestFlush, `digest-${fay.accountId}-${slot}`],
      ]);
      expect(jobs[0].opts).toMatchObject({
        attempts: 6,
        backoff: { type: 'exponential', delay: 5000 },
        removeOnComplete: true,
      });
    } finally {
      await queue.resume();
    }
    await t.sink.waitFor(
      (m) => m.to.includes(fay.login) && m.text.includes('Retried invoice'),
      5000,
    );
  });

  it('sends an hourly digest at most once per clock hour, with every held e-mail', async () => {
    t.clock.set('2026-11-23T10:05:00Z');
    const ada = await account({ email_mode: 'hourly_digest' });
    await hold(ada, 'Invoice 1');
    await hold(ada, 'Invoice 2');
    await sweepAndSettle();
    const [digest] = await Promise.all([
      t.sink.waitFor((m) => m.to.includes(ada.login) && m.subject.includes('digest')),
    ]);
    expect(digest.subject).toBe('Your notification digest: 2 updates');
    expect(digest.text).toContain('Invoice 1');
    expect(digest.text).toContain('Details of Invoice 2');
    expect(digest.html).toContain('<strong>Invoice 1</strong>');

    await hold(ada, 'Invoice 3');
    t.clock.set('2026-11-23T10:55:00Z');
    await sweepAndSettle();
    expect(mailsTo(ada).filter((m) => m.subject.includes('digest'))).toHaveLength(1);
    t.clock.set('2026-11-23T11:00:00Z');
    await sweepAndSettle();
    const second = await t.sink.waitFor(
      (m) => m.to.includes(ada.login) && m.subject === 'Your notification digest: 1 update',
    );
    expect(second.text).toContain('Invoice 3');
    expect(second.text).not.toContain('Invoice 1');
  });

  it('sends the daily digest at digest_hour in the account time zone, once a day', async () => {
    t.clock.set('2026-11-24T06:30:00Z'); // 07:30 in Berlin
    const bea = await account({ email_mode: 'daily_digest', digest_hour: 8, timezone: 'Berlin' });
    await hold(bea, 'Usage report');
    await sweepAndSettle();
    expect(mailsTo(bea)).toHaveLength(1); // only the verification e-mail
    t.clock.set('2026-11-24T07:00:00Z'); // 08:00 in Berlin
    await sweepAndSettle();
    await t.sink.waitFor((m) => m.to.includes(bea.login) && m.subject.includes('digest'));
    await hold(bea, 'Another report');
    t.clock.set('2026-11-24T07:45:00Z');
    await sweepAndSettle();
    expect(mailsTo(bea).filter((m) => m.subject.includes('digest'))).toHaveLength(1);
    t.clock.set('2026-11-25T07:15:00Z');
    await sweepAndSettle();
    await t.sink.waitFor((m) => m.to.includes(bea.login) && m.text.includes('Another report'));
  });

  it('never flushes a daily digest whose hour lies in the quiet window', async () => {
    t.clock.set('2026-11-26T06:10:00Z'); // 07:10 in Berlin
    const cem = await account({
      email_mode: 'daily_digest',
      digest_hour: 7,
      quiet_start: '22:00',
      quiet_end: '08:00',
      timezone: 'Europe/Berlin',
    });
    await hold(cem, 'Quiet report');
    await sweepAndSettle();
    t.clock.set('2026-11-27T06:40:00Z');
    await sweepAndSettle();
    expect(mailsTo(cem).filter((m) => m.subject.includes('digest'))).toHaveLength(0);
  });

  it('releases mail held by quiet hours, as written, when they end in instant mode', async () => {
    t.clock.set('2026-11-28T22:30:00Z'); // 23:30 in Berlin
    const dee = await account({
      email_mode: 'instant',
      quiet_start: '22:00',
      quiet_end: '07:00',
      timezone: 'Europe/Berlin',
    });
    await hold(dee, 'Card expires soon');
    await sweepAndSettle();
    expect(mailsTo(dee).filter((m) => m.subject === 'Card expires soon')).toHaveLength(0);
    t.clock.set('2026-11-29T06:00:00Z'); // 07:00 in Berlin: quiet_end is exclusive
    await sweepAndSettle();
    const released = await t.sink.waitFor(
      (m) => m.to.includes(dee.login) && m.subject === 'Card expires soon',
    );
    expect(released.text).toBe('Details of Card expires soon\n');
    const [held] = await t
      .get(DataSource)
      .query<Array<{ id: string }>>('SELECT id FROM pending_email WHERE account_id = $1', [
        dee.accountId,
      ]);
    expect(released.messageId).toBe(`<${messageIdLeft(heldMessageKey(held.id))}@localhost>`);
  });

  it('sends the batch again when the worker dies between send and mark, and never drops it', async () => {
    t.clock.set('2026-11-30T10:05:00Z');
    const eli = await account({ email_mode: 'hourly_digest' });
    await hold(eli, 'Crash-proof invoice');
    (t.get(DigestRepository) as CrashAfterSendDigestRepository).crashes = 1;
    await t.get(DigestProcessor).sweep();
    await eventually(
      () => mailsTo(eli).filter((m) => m.subject.includes('digest')).length >= 2,
      'the digest sent again',
    );
    const digests = mailsTo(eli).filter((m) => m.subject.includes('digest'));
    expect(digests).toHaveLength(2);
    expect(digests.every((m) => m.text.includes('Crash-proof invoice'))).toBe(true);
    // Sent again as the same message: the reader's side sees one digest.
    const [held] = await t
      .get(DataSource)
      .query<Array<{ id: string }>>('SELECT id FROM pending_email WHERE account_id = $1', [
        eli.accountId,
      ]);
    const messageId = `<${messageIdLeft(digestMessageKey(eli.accountId, [held.id]))}@localhost>`;
    expect(digests.map((m) => m.messageId)).toEqual([messageId, messageId]);
    // The mark commits just after the send it records: wait for it rather than race it.
    const sentAt = async () =>
      (
        (await t
          .get(DataSource)
          .query('SELECT sent_at FROM pending_email WHERE account_id = $1', [
            eli.accountId,
          ])) as Array<{ sent_at: Date | null }>
      )[0].sent_at;
    await eventually(sentAt, 'the held e-mail marked sent');
    expect(await sentAt()).not.toBeNull();
    expect(mailsTo(eli).filter((m) => m.subject.includes('digest'))).toHaveLength(2);
  });

  it("does not let one account's failing SMTP delivery delay the others", async () => {
    t.clock.set('2026-12-01T10:05:00Z');
    const broken = await account({ email_mode: 'hourly_digest' });
    const fine = await account({ email_mode: 'hourly_digest' });
    await hold(broken, 'Bounce');
    await hold(fine, 'Arrives');
    t.sink.refusedRecipients.add(broken.login);
    try {
      await t.get(DigestProcessor).sweep();
      await t.sink.waitFor((m) => m.to.includes(fine.login) && m.text.includes('Arrives'), 5000);
      const [pendingBroken] = (await t
        .get(DataSource)
        .query('SELECT sent_at FROM pending_email WHERE account_id = $1', [
          broken.accountId,
        ])) as Array<{ sent_at: Date | null }>;
      expect(pendingBroken.sent_at).toBeNull();
    } finally {
      t.sink.refusedRecipients.delete(broken.login);
    }
  });

  it("marks a held e-mail's delivery sent when its digest goes out, with no attempt of its own", async () => {
    t.clock.set('2026-12-02T10:05:00Z');
    const bo = await account({ email_mode: 'hourly_digest' });
    const [outcome] = await t.get(NotifyService).notify({
      category: 'billing',
      eventType: 'held_for_digest',
      organizationId: bo.organizationId,
      recipients: [bo.accountId],
      payload: {},
      email: { subject: 'Held invoice', text: 'For the digest' },
    });
    const record = async () =>
      (await t.get(DataSource).query(
        `SELECT d.status, d.reason, d.attempts, d.finished_at
           FROM notification_delivery n JOIN delivery d ON d.id = n.id
          WHERE n.notification_id = $1 AND d.channel = 'email'`,
        [outcome.notificationId],
      )) as Array<{ status: string }>;
    expect(await record()).toEqual([
      { status: 'held', reason: 'digest', attempts: 0, finished_at: null },
    ]);
    await sweepAndSettle();
    await t.sink.waitFor((m) => m.to.includes(bo.login) && m.text.includes('Held invoice'));
    await eventually(record, (rows) => rows[0]?.status === 'sent', 'the held delivery sent');
    expect(await record()).toEqual([
      { status: 'sent', reason: 'digest', attempts: 0, finished_at: t.clock.now() },
    ]);
  });
});
