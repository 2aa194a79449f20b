import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AppConfig } from '@platform/core';
import { EscalationJobs, pageKey } from '@platform/escalation';
import { messageIdLeft } from '@platform/mail';
import {
  ChannelRegistry,
  InAppFirst,
  NotifyService,
  PhoneChannel,
  PhoneProvider,
  SmsChannel,
} from '@platform/notifications';
import { type JobName, JobQueue, QueueName } from '@platform/queue';
import { RateLimiter } from '@platform/rate-limits';
import { randomUUID } from 'node:crypto';
import { eventually, type FakeTwilio, gatherAction } from '@platform/testing';
import type { DataSource } from 'typeorm';
import { OutcomesBehind } from '../../libs/escalation/src/paging/outcomes-behind.js';
import { PageDeliveryProcessor } from '../../libs/escalation/src/paging/page-delivery.processor.js';
import { PagesRepository } from '../../libs/escalation/src/paging/pages.repository.js';
import type { MailingTestApp } from '../support/api-app.js';
import { addMember, bearer, type TestAccount } from '../support/identity.js';
import { ADMIN_NUMBER, CONTACT_NUMBER, PagesFixture } from '../support/pages.js';

/** Each channel of an escalation page, its skips, failures and retries, and its jobs. */
describe('escalation page delivery', () => {
  let pages: PagesFixture;
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let db: DataSource;
  let processor: PageDeliveryProcessor;
  let admin: TestAccount;
  let member: TestAccount;

  beforeAll(async () => {
    pages = await PagesFixture.start();
    ({ t, twilio, db, processor, admin, member } = pages);
  });

  // Every text and call a test caused must be one it expected (GoAlert's smoke-harness rule).
  afterEach(() => twilio.expectNoUnexpected());

  afterAll(() => pages.close());

  const page: PagesFixture['page'] = (...args) => pages.page(...args);
  const pageRow = (pageId: string) => pages.pageRow(pageId);
  const deliver = (pageId: string, jobId?: string) => pages.deliver(pageId, jobId);
  const holdNotifyEach = () => pages.holdNotifyEach();
  /** As if the page had failed `attempts` attempts before. */
  const failedBefore = (pageId: string, attempts: number) =>
    db.query('UPDATE delivery SET attempts = $2 WHERE id = $1', [pageId, attempts]);
  /** The e-mail pages the delivery latency histogram of `/metrics` has observed, in all and within 50 ms. */
  const emailLatencies = async () => {
    const { text } = await t.request().get('/metrics').expect(200);
    const labels = 'channel="email",source="escalation"';
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    return {
      count: value(new RegExp(`^delivery_latency_seconds_count\\{${labels}\\} (\\d+)$`, 'm')),
      within50ms: value(
        new RegExp(`^delivery_latency_seconds_bucket\\{le="0\\.05",${labels}\\} (\\d+)$`, 'm'),
      ),
    };
  };
  /** The page's attempt rows, in order. */
  const attemptRows = async (pageId: string) =>
    (await db.query(
      `SELECT attempt, outcome, reason FROM delivery_attempt WHERE delivery_id = $1
        ORDER BY attempt`,
      [pageId],
    )) as Array<{ attempt: number; outcome: string; reason: string | null }>;

  it('in_app: one alert_escalation notification, in-app only, with the page in its payload', async () => {
    const { pageId, alertId, instanceId } = await page('in_app', { accountId: admin.accountId });
    const sentAt = t.clock.now();
    expect(await deliver(pageId)).toEqual({ outcome: 'sent' });
    const rows = (await db.query(
      `SELECT id, category_key, event_type, payload FROM notification
        WHERE account_id = $1 AND payload ->> 'alert_id' = $2`,
      [admin.accountId, alertId],
    )) as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      {
        id: expect.any(String),
        category_key: 'alert_escalation',
        event_type: 'alert_escalation',
        payload: {
          alert_id: alertId,
          escalation_instance_id: instanceId,
          step_index: 1,
          severity: 'critical',
          alertname: 'DiskFull',
          summary: 'Disk /var is 97% full',
          project_id: pages.projectId,
        },
      },
    ]);
    const deliveries = await db.query(
      `SELECT d.channel FROM notification_delivery n JOIN delivery d ON d.id = n.id
        WHERE n.notification_id = $1`,
      [rows[0].id],
    );
    expect(deliveries).toEqual([]);
    expect(await pageRow(pageId)).toMatchObject({
      status: 'sent',
      attempts: 1,
      reason: null,
      finished_at: sentAt,
    });
    expect(await attemptRows(pageId)).toEqual([{ attempt: 1, outcome: 'sent', reason: null }]);
    const center = await t.request().get('/notifications').set(bearer(admin.jwt)).expect(200);
    expect((center.body.data as Array<{ id: string }>).map((n) => n.id)).toContain(rows[0].id);
  });

  it('in_app: pages delivered together each get their own notification, ledger row and event', async () => {
    const pages = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        page('in_app', { accountId: n % 2 === 0 ? admin.accountId : member.accountId }),
      ),
    );
    // One of them already settled by another delivery, one whose account is gone.
    await db.query(`UPDATE delivery SET status = 'sent' WHERE id = $1`, [pages[0].pageId]);
    await db.query(`UPDATE escalation_page SET account_id = gen_random_uuid() WHERE id = $1`, [
      pages[1].pageId,
    ]);
    // Observed, not replaced: the batch is one claim, one notifyEach and one settlement.
    const reads = jest.spyOn(t.get(PagesRepository), 'claimMany');
    const notifies = jest.spyOn(t.get(NotifyService), 'notifyEach');
    const settlements = jest.spyOn(t.get(PagesRepository), 'settleMany');
    const results = await processor.deliver({ pageIds: pages.map(({ pageId }) => pageId) });
    expect([reads, notifies, settlements].map((spy) => spy.mock.calls.length)).toEqual([1, 1, 1]);
    for (const spy of [reads, notifies, settlements]) spy.mockRestore();
    expect(results).toEqual([
      { outcome: 'done' },
      { outcome: 'skipped', reason: 'recipient_gone' },
      ...Array.from({ length: 10 }, () => ({ outcome: 'sent' })),
    ]);
    for (const [n, { pageId, alertId, instanceId }] of pages.entries()) {
      const notifications = (await db.query(
        `SELECT account_id, payload ->> 'escalation_instance_id' AS instance_id FROM notification
          WHERE payload ->> 'alert_id' = $1`,
        [alertId],
      )) as Array<{ account_id: string; instance_id: string }>;
      const ledger = await db.query(
        `SELECT action, channel FROM escalation_ledger WHERE instance_id = $1`,
        [instanceId],
      );
      const events = await db.query(
        `SELECT details ->> 'channel' AS channel FROM alert_event
          WHERE alert_id = $1 AND kind = 'paged'`,
        [alertId],
      );
      if (n < 2) {
        expect(notifications).toEqual([]);
        expect(ledger).toEqual([]);
        continue;
      }
      expect(notifications).toEqual([
        { account_id: n % 2 === 0 ? admin.accountId : member.accountId, instance_id: instanceId },
      ]);
      expect(ledger).toEqual([{ action: 'notified', channel: 'in_app' }]);
      expect(events).toEqual([{ channel: 'in_app' }]);
      expect(await pageRow(pageId)).toMatchObject({ status: 'sent', attempts: 1 });
    }
    expect(await pageRow(pages[1].pageId)).toMatchObject({
      status: 'skipped',
      reason: 'recipient_gone',
      attempts: 0,
    });
  });

  it('in_app: skipped with the rule that withheld it when a member turned in-app off', async () => {
    await t
      .request()
      .patch('/notification_preferences')
      .set(bearer(member.jwt))
      .send({
        preferences: [{ category_key: 'alert_escalation', channel: 'in_app', enabled: false }],
      })
      .expect(200);
    const { pageId } = await page('in_app', { accountId: member.accountId });
    expect(await deliver(pageId)).toEqual({
      outcome: 'skipped',
      reason: 'in_app_disabled',
    });
    expect(await pageRow(pageId)).toMatchObject({
      status: 'skipped',
      reason: 'in_app_disabled',
      attempts: 0,
    });
  });

  it('email: to the login, naming the alert, with a signed link that opens the acknowledgement', async () => {
    const { pageId, alertId, instanceId } = await page('email', { accountId: admin.accountId });
    const observedBefore = await emailLatencies();
    // Sent: the SMTP server accepted it, under the page's Message-ID.
    const messageId = `<${messageIdLeft(pageKey(pageId))}@localhost>`;
    expect(await deliver(pageId)).toEqual({ outcome: 'sent', providerSid: messageId });
    // Due → accepted on the latency histogram: sent at the instant it fell due (the test clock).
    expect(await emailLatencies()).toEqual({
      count: observedBefore.count + 1,
      within50ms: observedBefore.within50ms + 1,
    });
    expect(await pageRow(pageId)).toMatchObject({
      status: 'sent',
      attempts: 1,
      provider_ref: messageId,
    });
    expect(await attemptRows(pageId)).toEqual([{ attempt: 1, outcome: 'sent', reason: null }]);
    const mail = await t.sink.waitFor(
      (m) => m.to.includes(admin.login) && m.text.includes(alertId),
    );
    expect(mail.messageId).toBe(messageId);
    expect(mail.subject).toBe('[CRITICAL] DiskFull: Disk /var is 97% full');
    expect(mail.text).toContain('project payments');
    expect(mail.text).toContain('The link is valid for 24 hours.');
    const link = /http:\/\/localhost:3000\/alerts\/ack\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(
      mail.text,
    );
    expect(link).not.toBeNull();
    expect(mail.html).toContain(`href="${link![0]}"`);
    const shown = await t.request().get(`/alerts/ack/${link![1]}`).expect(200);
    expect(shown.body.data).toEqual({
      alert_id: alertId,
      account_id: admin.accountId,
      escalation_instance_id: instanceId,
      alert_summary: 'Disk /var is 97% full',
      alert_severity: 'critical',
    });
  });

  it('phone: calls the verified number with TwiML gathering one digit for the signed callback', async () => {
    const { pageId } = await page(
      'phone',
      { accountId: admin.accountId },
      { phoneNumber: ADMIN_NUMBER },
    );
    const result = await deliver(pageId);
    const call = await twilio.device(ADMIN_NUMBER).expectCall('DiskFull');
    expect(result).toEqual({ outcome: 'sent', providerSid: call.sid });
    expect(call.from).toBe('+15550000000');
    expect(call.twiml).toMatch(
      /^<Response><Gather numDigits="1" action="http:\/\/localhost:3000\/alerts\/phone_ack\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+" method="POST"><Say>[^<]*DiskFull[^<]*Press 1 to acknowledge\.<\/Say><\/Gather><Say>No input received\.<\/Say><\/Response>$/,
    );
    expect(gatherAction(call.twiml)).toMatch(/^http:\/\/localhost:3000\/alerts\/phone_ack\//);
    expect(await pageRow(pageId)).toMatchObject({
      status: 'sent',
      attempts: 1,
      provider_ref: call.sid,
      phone_number: ADMIN_NUMBER,
    });
    expect(await attemptRows(pageId)).toEqual([{ attempt: 1, outcome: 'sent', reason: null }]);
  });

  it('phone: an external contact is called on its own number', async () => {
    twilio.clear();
    const { pageId } = await page('phone', { label: 'NOC desk', number: CONTACT_NUMBER });
    await deliver(pageId);
    const call = await twilio.device(CONTACT_NUMBER).expectCall('DiskFull');
    expect(await pageRow(pageId)).toMatchObject({ status: 'sent', provider_ref: call.sid });
  });

  it('sms: the text names the alert and ends with the reply code', async () => {
    const { pageId } = await page('sms', { accountId: admin.accountId }, { replyCode: '482913' });
    await deliver(pageId);
    const sms = await twilio.device(ADMIN_NUMBER).expectSms('482913');
    expect(sms).toMatchObject({
      body: '[CRITICAL] DiskFull firing in payments: Disk /var is 97% full. Reply 482913 to acknowledge.',
    });
    expect(await pageRow(pageId)).toMatchObject({
      status: 'sent',
      provider_ref: sms.sid,
      phone_number: ADMIN_NUMBER,
    });
    expect(await attemptRows(pageId)).toEqual([{ attempt: 1, outcome: 'sent', reason: null }]);
  });

  it('phone and sms: an account without a verified number is skipped, nothing is sent', async () => {
    twilio.clear();
    for (const channel of ['phone', 'sms'] as const) {
      const { pageId } = await page(
        channel,
        { accountId: member.accountId },
        { replyCode: '111111' },
      );
      expect(await deliver(pageId)).toEqual({
        outcome: 'skipped',
        reason: 'phone_not_verified',
      });
      expect(await pageRow(pageId)).toMatchObject({
        status: 'skipped',
        reason: 'phone_not_verified',
        attempts: 0,
        // Decided, not attempted: finished with no attempt row.
        finished_at: t.clock.now(),
      });
      expect(await attemptRows(pageId)).toEqual([]);
    }
    await db.query("UPDATE account SET phone_number = '+4915100000077' WHERE id = $1", [
      member.accountId,
    ]);
    const { pageId } = await page('phone', { accountId: member.accountId });
    expect(await deliver(pageId)).toEqual({
      outcome: 'skipped',
      reason: 'phone_not_verified',
    });
    expect(twilio.requests).toEqual([]);
  });

  /** The app's channels, with texts and calls through `provider`. */
  const registryWith = (provider: PhoneProvider): ChannelRegistry => {
    const channels = t.get(ChannelRegistry);
    const phone = new PhoneChannel(provider);
    const sms = new SmsChannel(provider);
    return {
      get: (name: string) =>
        name === 'phone' ? phone : name === 'sms' ? sms : channels.get(name as 'email'),
    } as unknown as ChannelRegistry;
  };

  it('phone and sms without a provider fail at once with phone_provider_not_configured', async () => {
    const config: AppConfig = { ...t.config, phone: null };
    const unconfigured = new PageDeliveryProcessor(
      t.clock,
      config,
      t.get(PagesRepository),
      t.get(NotifyService),
      registryWith(new PhoneProvider(config, t.get(RateLimiter))),
      t.get(EscalationJobs),
      t.get(OutcomesBehind),
      t.get(InAppFirst),
    );
    for (const channel of ['phone', 'sms'] as const) {
      const { pageId } = await page(
        channel,
        { label: 'NOC desk', number: CONTACT_NUMBER },
        { replyCode: '222222' },
      );
      expect(await unconfigured.deliver({ pageIds: [pageId] })).toEqual([
        { outcome: 'failed', reason: 'phone_provider_not_configured' },
      ]);
      expect(await pageRow(pageId)).toMatchObject({
        status: 'failed',
        reason: 'phone_provider_not_configured',
      });
    }
  });

  it('a provider failure counts an attempt and is retried by a job of its own; the eighth attempt fails the page', async () => {
    const { pageId } = await page(
      'sms',
      { label: 'NOC desk', number: CONTACT_NUMBER },
      { replyCode: '333333' },
    );
    twilio.failNext(1);
    expect(await deliver(pageId)).toEqual({
      outcome: 'retry',
      reason: expect.stringMatching(/500/),
      retryInMs: 2_000,
    });
    expect(await pageRow(pageId)).toMatchObject({
      status: 'pending',
      attempts: 1,
      reason: expect.stringMatching(/500/),
    });
    const claimOf = (id: string) =>
      db.query('SELECT claimed_by, claimed_at, phone_number FROM escalation_page WHERE id = $1', [
        id,
      ]);
    // Left pending: released for its retry.
    expect(await claimOf(pageId)).toEqual([
      { claimed_by: null, claimed_at: null, phone_number: CONTACT_NUMBER },
    ]);
    const [{ next_attempt_at: retryAt }] = await db.query<Array<{ next_attempt_at: Date }>>(
      'SELECT next_attempt_at FROM delivery WHERE id = $1',
      [pageId],
    );
    expect(retryAt).toEqual(new Date(t.clock.now().getTime() + 2_000));
    // The retry is a delayed job named by the page and its attempts (the sweeper's would be too).
    const queue = t.get(JobQueue).queue(QueueName.PageSends);
    const retry = await queue.getJob(EscalationJobs.pageJobId(pageId, 1));
    expect(retry?.data).toEqual({ pageIds: [pageId] });
    expect(retry?.opts.delay).toBe(2_000);
    await retry!.remove();

    expect(await deliver(pageId)).toEqual({ outcome: 'sent', providerSid: expect.any(String) });
    expect(await pageRow(pageId)).toMatchObject({ status: 'sent', attempts: 2, reason: null });
    // Sent: the number texted is kept for the reply; the claim stays the settling delivery's.
    expect(await claimOf(pageId)).toEqual([
      {
        claimed_by: expect.stringMatching(/^direct-/),
        claimed_at: expect.any(Date),
        phone_number: CONTACT_NUMBER,
      },
    ]);
    expect(await attemptRows(pageId)).toEqual([
      { attempt: 1, outcome: 'failed', reason: expect.stringMatching(/500/) },
      { attempt: 2, outcome: 'sent', reason: null },
    ]);
    await twilio.device(CONTACT_NUMBER).expectSms('333333');

    const last = await page('phone', { label: 'NOC desk', number: CONTACT_NUMBER });
    await failedBefore(last.pageId, 7);
    twilio.failNext(1);
    expect(await deliver(last.pageId)).toEqual({
      outcome: 'failed',
      reason: expect.stringMatching(/500/),
    });
    expect(await pageRow(last.pageId)).toMatchObject({
      status: 'failed',
      attempts: 8,
      reason: expect.stringMatching(/500/),
    });
    expect(await queue.getJob(EscalationJobs.pageJobId(last.pageId, 8))).toBeUndefined();
  });

  it('a page no longer pending is done: delivering it again sends nothing', async () => {
    const { pageId } = await page(
      'sms',
      { label: 'NOC desk', number: CONTACT_NUMBER },
      { replyCode: '444444' },
    );
    await deliver(pageId);
    await twilio.device(CONTACT_NUMBER).expectSms('444444');
    const before = twilio.requests.length;
    expect(await deliver(pageId)).toEqual({ outcome: 'done' });
    expect(await deliver('00000000-0000-4000-8000-000000000000')).toEqual({
      outcome: 'done',
    });
    expect(twilio.requests).toHaveLength(before);
    expect(await pageRow(pageId)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('a page of an escalation acknowledged or resolved meanwhile is skipped', async () => {
    twilio.clear();
    for (const state of ['acknowledged', 'resolved']) {
      const { pageId } = await page(
        'phone',
        { label: 'NOC desk', number: CONTACT_NUMBER },
        { state },
      );
      expect(await deliver(pageId)).toEqual({
        outcome: 'skipped',
        reason: 'escalation_halted',
      });
      expect(await pageRow(pageId)).toMatchObject({
        status: 'skipped',
        reason: 'escalation_halted',
      });
    }
    expect(twilio.requests).toEqual([]);
  });

  it('a page whose account was deleted is skipped', async () => {
    const gone = await addMember(t, t.sink, admin, 'gone@pages.example', 'developer');
    const { pageId } = await page('email', { accountId: gone.accountId });
    await db.query('DELETE FROM account WHERE id = $1', [gone.accountId]);
    expect(await deliver(pageId)).toEqual({
      outcome: 'skipped',
      reason: 'recipient_gone',
    });
  });

  it('e-mail, call and text pages wait for the in-app pages being delivered before them', async () => {
    const inApp = await page('in_app', { accountId: admin.accountId });
    const email = await page('email', { accountId: admin.accountId });
    const notifying = holdNotifyEach();
    try {
      const inAppJob = processor.run({ pageIds: [inApp.pageId] }, { id: 'in-app-first-1' });
      const sendsJob = processor.runSends({ pageIds: [email.pageId] }, { id: 'in-app-first-2' });
      // Well within the longest wait (2 s): the e-mail is held while the in-app page is written.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(t.sink.messages.filter((m) => m.text.includes(email.alertId))).toEqual([]);
      expect(await pageRow(email.pageId)).toMatchObject({ status: 'pending', attempts: 0 });
      notifying.release();
      expect(await inAppJob).toEqual({ sent: 1 });
      expect(await sendsJob).toEqual({ sent: 1 });
      await t.sink.waitFor((m) => m.to.includes(admin.login) && m.text.includes(email.alertId));
    } finally {
      notifying.release();
    }
  });

  it('pages go out 500 to a delivery job, in-app pages on a queue apart from the others', async () => {
    // Observed, not replaced: the jobs still run (and find these pages gone).
    const enqueue = jest.spyOn(t.get(JobQueue), 'enqueueBulk');
    const ids = Array.from({ length: 1_001 }, () => randomUUID());
    await t.get(EscalationJobs).pages(ids, true);
    await t.get(EscalationJobs).pages(ids.slice(0, 2), false);
    const calls = enqueue.mock.calls as unknown as Array<
      [JobName, Array<{ data: { pageIds: string[] }; options: { jobId: string } }>]
    >;
    enqueue.mockRestore();
    expect(
      calls.map(([name, jobs]) => [
        t.get(JobQueue).queueOf(name),
        jobs.map((job) => [job.options.jobId, job.data.pageIds.length]),
      ]),
    ).toEqual([
      [
        QueueName.Pages,
        [
          [`pages-${ids[0]}`, 500],
          [`pages-${ids[500]}`, 500],
          [`pages-${ids[1000]}`, 1],
        ],
      ],
      [QueueName.PageSends, [[`pages-${ids[0]}`, 2]]],
    ]);
  });

  it('runs as the worker job enqueued for the page', async () => {
    const { pageId } = await page(
      'sms',
      { label: 'NOC desk', number: CONTACT_NUMBER },
      { replyCode: '555555' },
    );
    await t.get(EscalationJobs).pages([pageId], false);
    await twilio.device(CONTACT_NUMBER).expectSms('555555');
    const row = await eventually(
      () => pageRow(pageId),
      (r) => r.status !== 'pending',
    );
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
  });
});
