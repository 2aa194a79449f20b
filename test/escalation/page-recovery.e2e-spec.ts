import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { EscalationJobs, pageKey } from '@platform/escalation';
import { messageIdLeft } from '@platform/mail';
import { JobQueue, QueueName } from '@platform/queue';
import { type FakeTwilio, eventually, expectEventually } from '@platform/testing';
import type { DataSource } from 'typeorm';
import { EscalationSweeper } from '../../libs/escalation/src/engine/escalation-sweeper.js';
import type { PageDeliveryProcessor } from '../../libs/escalation/src/paging/page-delivery.processor.js';
import { PagesRepository } from '../../libs/escalation/src/paging/pages.repository.js';
import type { MailingTestApp } from '../support/api-app.js';
import type { TestAccount } from '../support/identity.js';
import { CONTACT_NUMBER, PagesFixture } from '../support/pages.js';

/**
 * What keeps a page delivered once (its claim) and delivered at all (the sweeper), and the
 * outcomes recorded behind a burst: a page's delivery lost with its job, its process or its
 * record is delivered again, at least once and as the same message.
 */
describe('escalation page recovery', () => {
  let pages: PagesFixture;
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let db: DataSource;
  let processor: PageDeliveryProcessor;
  let admin: TestAccount;

  beforeAll(async () => {
    pages = await PagesFixture.start();
    ({ t, twilio, db, processor, admin } = pages);
  });

  // Every text and call a test caused must be one it expected (GoAlert's smoke-harness rule).
  afterEach(() => twilio.expectNoUnexpected());

  afterAll(() => pages.close());

  const page: PagesFixture['page'] = (...args) => pages.page(...args);
  const pageRow = (pageId: string) => pages.pageRow(pageId);
  const claimOf = (pageId: string) => pages.claimOf(pageId);
  const deliver = (pageId: string, jobId?: string) => pages.deliver(pageId, jobId);
  const holdNotifyEach = () => pages.holdNotifyEach();

  it('a page delivered again after its outcome went unrecorded notifies once and mails the same message', async () => {
    const inApp = await page('in_app', { accountId: admin.accountId });
    const email = await page('email', { accountId: admin.accountId });
    const pageIds = [inApp.pageId, email.pageId];
    // The first delivery sends, then fails to record it, as a worker killed between the two.
    const settle = jest
      .spyOn(t.get(PagesRepository), 'settleMany')
      .mockRejectedValueOnce(new Error('killed'));
    await expect(processor.deliver({ pageIds }, { id: 'batch-1' })).rejects.toThrow('killed');
    settle.mockRestore();
    expect(await pageRow(inApp.pageId)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await pageRow(email.pageId)).toMatchObject({ status: 'pending', attempts: 0 });
    // Still claimed by that job: another delivery (the sweeper's) takes neither page.
    expect(await deliver(email.pageId, 'another-job')).toEqual({ outcome: 'done' });

    // The job runs again (BullMQ's retry of it, or the stalled job on another worker).
    expect(await processor.deliver({ pageIds }, { id: 'batch-1' })).toEqual([
      { outcome: 'sent' },
      { outcome: 'sent', providerSid: expect.any(String) },
    ]);
    const notifications = await db.query<Array<{ idempotency_key: string }>>(
      `SELECT idempotency_key FROM notification WHERE payload ->> 'alert_id' = $1`,
      [inApp.alertId],
    );
    expect(notifications).toEqual([{ idempotency_key: pageKey(inApp.pageId) }]);
    for (const { pageId } of [inApp, email])
      expect(await pageRow(pageId)).toMatchObject({ status: 'sent', attempts: 1 });

    // At least once, and the same message: one Message-ID, the page's.
    const mails = t.sink.messages.filter((m) => m.text.includes(email.alertId));
    expect(mails.map((m) => m.messageId)).toEqual([
      `<${messageIdLeft(pageKey(email.pageId))}@localhost>`,
      `<${messageIdLeft(pageKey(email.pageId))}@localhost>`,
    ]);
  });

  it("a claim older than five minutes is a crashed delivery's: another delivery takes the page", async () => {
    const { pageId } = await page('email', { accountId: admin.accountId });
    await db.query(
      `UPDATE escalation_page SET claimed_by = 'crashed', claimed_at = $2 WHERE id = $1`,
      [pageId, new Date(t.clock.now().getTime() - 4 * 60_000)],
    );
    expect(await deliver(pageId)).toEqual({ outcome: 'done' });
    await db.query(`UPDATE escalation_page SET claimed_at = $2 WHERE id = $1`, [
      pageId,
      new Date(t.clock.now().getTime() - 5 * 60_000),
    ]);
    expect(await deliver(pageId)).toEqual({
      outcome: 'sent',
      providerSid: `<${messageIdLeft(pageKey(pageId))}@localhost>`,
    });
    expect(
      await db.query(
        `SELECT d.status, p.claimed_by, p.claimed_at
           FROM escalation_page p JOIN delivery d ON d.id = p.id WHERE p.id = $1`,
        [pageId],
      ),
    ).toEqual([
      {
        status: 'sent',
        claimed_by: expect.stringMatching(/^direct-/),
        claimed_at: expect.any(Date),
      },
    ]);
  });

  it('the sweeper queues a page whose job was lost, and leaves one waiting for its retry alone', async () => {
    const lost = await page(
      'sms',
      { label: 'NOC desk', number: CONTACT_NUMBER },
      { replyCode: '666666' },
    );
    const waiting = await page(
      'sms',
      { label: 'NOC desk', number: CONTACT_NUMBER },
      { replyCode: '777777' },
    );
    t.clock.advance({ seconds: 31 });
    await db.query(`UPDATE delivery SET attempts = 3, next_attempt_at = $2 WHERE id = $1`, [
      waiting.pageId,
      new Date(t.clock.now().getTime() + 60_000),
    ]);
    await t.get(EscalationSweeper).sweep();
    await twilio.device(CONTACT_NUMBER).expectSms('666666');
    const row = await eventually(
      () => pageRow(lost.pageId),
      (r) => r.status !== 'pending',
    );
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
    const queue = t.get(JobQueue).queue(QueueName.PageSends);
    expect(await queue.getJob(EscalationJobs.pageJobId(waiting.pageId, 3))).toBeUndefined();
    expect(await pageRow(waiting.pageId)).toMatchObject({ status: 'pending', attempts: 3 });
    await db.query(`UPDATE delivery SET status = 'failed' WHERE id = $1`, [waiting.pageId]);
  });

  it('while page jobs wait or run, the sweeper leaves a page pending 31 s to them and queues it after ten minutes', async () => {
    const lost = await page(
      'sms',
      { label: 'NOC desk', number: CONTACT_NUMBER },
      { replyCode: '999999' },
    );
    const busy = await page('in_app', { accountId: admin.accountId });
    // A real in-app job, held while it writes its notification: the backlog the sweeper sees.
    const notifying = holdNotifyEach();
    const jobs = t.get(JobQueue);
    try {
      await t.get(EscalationJobs).pages([busy.pageId], true);
      await eventually(
        () => jobs.unfinished(QueueName.Pages),
        (n) => n > 0,
      );
      t.clock.advance({ seconds: 31 });
      await t.get(EscalationSweeper).sweep();
      const retry = () =>
        jobs.queue(QueueName.PageSends).getJob(EscalationJobs.pageJobId(lost.pageId, 0));
      expect(await retry()).toBeUndefined();
      // Nor was it sent meanwhile (a retry job that ran at once would be gone already).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(JSON.stringify(twilio.requests)).not.toContain('999999');

      t.clock.advance({ minutes: 10 });
      await t.get(EscalationSweeper).sweep();
      await twilio.device(CONTACT_NUMBER).expectSms('999999');
    } finally {
      notifying.release();
    }
    const row = await eventually(
      () => pageRow(busy.pageId),
      (r) => r.status !== 'pending',
    );
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('the sweeper frees a stale page claimed 30 s ago by a job that ended without recording it, not one of a job still to run', async () => {
    // `ended` stands for an e-mail whose job sent it and ended, its outcome lost with the process
    // (outcomes are recorded behind the burst); `queued` is claimed by a job still waiting.
    const ended = await page('email', { accountId: admin.accountId });
    const claim = async (id: string, claimant: string) =>
      db.query('UPDATE escalation_page SET claimed_by = $2, claimed_at = $3 WHERE id = $1', [
        id,
        claimant,
        t.clock.now(),
      ]);
    await claim(ended.pageId, 'pages-ended');
    t.clock.advance({ seconds: 29 });
    await t.get(EscalationSweeper).sweep();
    expect(await claimOf(ended.pageId)).toBe('pages-ended');
    t.clock.advance({ seconds: 2 });
    await t.get(EscalationSweeper).sweep();
    await expectEventually(async () =>
      expect(await pageRow(ended.pageId)).toMatchObject({ status: 'sent', attempts: 1 }),
    );

    const queued = await page('email', { accountId: admin.accountId });
    const sends = t.get(JobQueue).queue(QueueName.PageSends);
    await sends.pause();
    try {
      await t.get(EscalationJobs).pages([queued.pageId], false);
      await claim(queued.pageId, `pages-${queued.pageId}`);
      // Stale even behind the backlog its own job makes (ten minutes).
      t.clock.advance({ minutes: 11 });
      await t.get(EscalationSweeper).sweep();
      expect(await claimOf(queued.pageId)).toBe(`pages-${queued.pageId}`);
    } finally {
      await sends.resume();
    }
    await expectEventually(async () =>
      expect(await pageRow(queued.pageId)).toMatchObject({ status: 'sent', attempts: 1 }),
    );
    for (const { pageId, alertId } of [ended, queued])
      expect(
        t.sink.messages.filter((m) => m.text.includes(alertId)).map((m) => m.messageId),
      ).toEqual([`<${messageIdLeft(pageKey(pageId))}@localhost>`]);
  });

  it('as a job, records in-app outcomes behind it: the job answers first, the pages settle right after', async () => {
    const pages = await Promise.all(
      Array.from({ length: 3 }, () => page('in_app', { accountId: admin.accountId })),
    );
    const sms = await page(
      'sms',
      { label: 'NOC desk', number: CONTACT_NUMBER },
      { replyCode: '888888' },
    );
    const pageIds = [...pages.map((p) => p.pageId), sms.pageId];
    t.clock.advance({ seconds: 10 });
    expect(await processor.run({ pageIds }, { id: 'burst-1' })).toEqual({ sent: 4 });
    await twilio.device(CONTACT_NUMBER).expectSms('888888');
    // The text settled within the job; the in-app pages once no page job is running.
    expect(await pageRow(sms.pageId)).toMatchObject({ status: 'sent', attempts: 1 });
    for (const { pageId } of pages)
      await expectEventually(async () =>
        expect(await pageRow(pageId)).toMatchObject({ status: 'sent', attempts: 1 }),
      );
    expect(
      await db.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM escalation_ledger WHERE instance_id = ANY ($1::uuid[])`,
        [pages.map((p) => p.instanceId)],
      ),
    ).toEqual([{ n: 3 }]);
  });

  it('records in-app and e-mail outcomes only once no page job waits or runs on any worker', async () => {
    const { pageId } = await page('in_app', { accountId: admin.accountId });
    const mailed = await page('email', { accountId: admin.accountId });
    const email = await page('email', { accountId: admin.accountId });
    // An e-mail page job waiting (its queue paused: no worker takes it) stands for another
    // worker's e-mails still going out.
    const sends = t.get(JobQueue).queue(QueueName.PageSends);
    await sends.pause();
    try {
      await t.get(EscalationJobs).pages([email.pageId], false);
      expect(await processor.run({ pageIds: [pageId, mailed.pageId] }, { id: 'held-1' })).toEqual({
        sent: 2,
      });
      await t.sink.waitFor((m) => m.to.includes(admin.login) && m.text.includes(mailed.alertId));
      // Well past the rechecks, well within the longest wait (5 s).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await pageRow(pageId)).toMatchObject({ status: 'pending', attempts: 0 });
      // Sent, not recorded yet: still the job's, so no other delivery sends it meanwhile.
      expect(await pageRow(mailed.pageId)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(await claimOf(mailed.pageId)).toBe('held-1');
      expect(await deliver(mailed.pageId, 'another-job')).toEqual({ outcome: 'done' });
    } finally {
      await sends.resume();
    }
    for (const id of [pageId, mailed.pageId, email.pageId])
      await expectEventually(async () =>
        expect(await pageRow(id)).toMatchObject({ status: 'sent', attempts: 1 }),
      );
    expect(await claimOf(mailed.pageId)).toBe('held-1');
    // Recorded whole: the ledger row and the timeline event came with it.
    expect(
      await db.query(
        `SELECT (SELECT count(*)::int FROM escalation_ledger
                  WHERE instance_id = $1 AND channel = 'email') AS ledger,
                (SELECT count(*)::int FROM alert_event
                  WHERE alert_id = $2 AND kind = 'paged') AS events`,
        [mailed.instanceId, mailed.alertId],
      ),
    ).toEqual([{ ledger: 1, events: 1 }]);
    expect(t.sink.messages.filter((m) => m.text.includes(mailed.alertId))).toHaveLength(1);
  });
});
