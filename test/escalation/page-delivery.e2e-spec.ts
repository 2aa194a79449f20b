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
import { randomUUID } from 'node:crypto';
import { FakeTwilio, gatherAction, eventually, expectEventually } from '@platform/testing';
import { DataSource } from 'typeorm';
import { EscalationSweeper } from '../../libs/escalation/src/engine/escalation-sweeper.js';
import { OutcomesBehind } from '../../libs/escalation/src/paging/outcomes-behind.js';
import { PageDeliveryProcessor } from '../../libs/escalation/src/paging/page-delivery.processor.js';
import { PagesRepository } from '../../libs/escalation/src/paging/pages.repository.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { addMember, bearer, createAccount, type TestAccount } from '../support/identity.js';
import { RateLimiter } from '@platform/rate-limits';

type Channel = 'in_app' | 'email' | 'phone' | 'sms';

interface PageRow {
  status: string;
  reason: string | null;
  attempts: number;
  provider_ref: string | null;
  phone_number: string | null;
  finished_at: Date | null;
}

const ADMIN_NUMBER = '+4915100000001';
const CONTACT_NUMBER = '+4915100000099';

describe('escalation page delivery', () => {
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let db: DataSource;
  let processor: PageDeliveryProcessor;
  let admin: TestAccount;
  let member: TestAccount;
  let projectId: string;

  beforeAll(async () => {
    twilio = await FakeTwilio.start();
    t = await createMailingApiTestApp({ config: { phone: twilio.config() } });
    db = t.get(DataSource);
    processor = t.get(PageDeliveryProcessor);
    admin = await createAccount(t, t.sink, 'oncall@pages.example');
    member = await addMember(t, t.sink, admin, 'dev@pages.example', 'developer');
    projectId = await alertsProject(t, admin, 'payments');
    await db.query(
      "UPDATE account SET name = 'Olivia Oncall', phone_number = $2, phone_verified_at = now() WHERE id = $1",
      [admin.accountId, ADMIN_NUMBER],
    );
  });

  // Every text and call a test caused must be one it expected (GoAlert's smoke-harness rule).
  afterEach(() => twilio.expectNoUnexpected());

  afterAll(async () => {
    await t.close();
    await twilio.close();
  });

  const insertAlert = async (alertname = 'DiskFull') => {
    const now = t.clock.now();
    const [row] = await db.query(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations, starts_at,
                          last_received_at, created_at, updated_at)
       VALUES ($1, $2, 'firing', 'critical', $3, $4, $5, $5, $5, $5) RETURNING id`,
      [
        projectId,
        `fp-${Math.random().toString(36).slice(2)}`,
        JSON.stringify({ alertname }),
        JSON.stringify({ summary: 'Disk /var is 97% full' }),
        now,
      ],
    );
    return row.id as string;
  };
  const insertInstance = async (alertId: string, state = 'active') => {
    const now = t.clock.now();
    const snapshot = {
      id: alertId,
      name: 'Primary',
      re_escalation_after: null,
      repeats: 0,
      steps: [],
    };
    const [row] = await db.query(
      `INSERT INTO escalation_instance (project_id, alert_id, chain_snapshot, state, opened_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5) RETURNING id`,
      [projectId, alertId, JSON.stringify(snapshot), state, now],
    );
    return row.id as string;
  };
  /** An alert with an active escalation and one pending page of it. */
  const page = async (
    channel: Channel,
    recipient: { accountId: string } | { label: string; number: string },
    options: { replyCode?: string; state?: string; phoneNumber?: string | null } = {},
  ) => {
    const alertId = await insertAlert();
    const instanceId = await insertInstance(alertId, options.state);
    const now = t.clock.now();
    const isAccount = 'accountId' in recipient;
    const [row] = await db.query(
      `WITH page AS (
         INSERT INTO escalation_page (instance_id, project_id, alert_id, generation, repeat_count,
           step_index, channel, account_id, contact_label, phone_number, reply_code, created_at)
         VALUES ($1, $2, $3, 0, 0, 1, $4, $5, $6, $7, $8, $9) RETURNING id, channel
       ), record AS (
         INSERT INTO delivery (id, source, channel, status, created_at, due_at, next_attempt_at)
         SELECT id, 'escalation_page', channel, 'pending', $9, $9, $9 FROM page
       )
       SELECT id FROM page`,
      [
        instanceId,
        projectId,
        alertId,
        channel,
        isAccount ? recipient.accountId : null,
        isAccount ? null : recipient.label,
        isAccount ? (options.phoneNumber ?? null) : recipient.number,
        options.replyCode ?? null,
        now,
      ],
    );
    return { pageId: row.id as string, alertId, instanceId };
  };
  const pageRow = async (pageId: string) =>
    (
      (await db.query(
        `SELECT d.status, d.reason, d.attempts, d.provider_ref, p.phone_number, d.finished_at
           FROM escalation_page p JOIN delivery d ON d.id = p.id WHERE p.id = $1`,
        [pageId],
      )) as PageRow[]
    )[0];
  /** Delivers one page as a job of its own (named `jobId`); answers its result. */
  const deliver = async (pageId: string, jobId?: string) =>
    (await processor.deliver({ pageIds: [pageId] }, jobId ? { id: jobId } : undefined))[0];
  /** As if the page had failed `attempts` attempts before. */
  const failedBefore = (pageId: string, attempts: number) =>
    db.query('UPDATE delivery SET attempts = $2 WHERE id = $1', [pageId, attempts]);
  /**
   * Holds the next notifyEach (an in-app page job writing its notification) until `release`,
   * then lets it write; `release` also puts notifyEach back.
   */
  const holdNotifyEach = () => {
    const notifications = t.get(NotifyService);
    const notifyEach = notifications.notifyEach.bind(notifications);
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    const spy = jest.spyOn(notifications, 'notifyEach').mockImplementationOnce(async (requests) => {
      await held;
      return notifyEach(requests);
    });
    return {
      release: () => {
        open();
        spy.mockRestore();
      },
    };
  };
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
          project_id: projectId,
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
    const claimOf = async (id: string) =>
      (
        await db.query<Array<{ claimed_by: string | null }>>(
          'SELECT claimed_by FROM escalation_page WHERE id = $1',
          [id],
        )
      )[0].claimed_by;
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
    const claimOf = async (id: string) =>
      (
        await db.query<Array<{ claimed_by: string | null }>>(
          'SELECT claimed_by FROM escalation_page WHERE id = $1',
          [id],
        )
      )[0].claimed_by;
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
