import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { IN_APP_CHUNK, NotifyService } from '@platform/notifications';
import { FakeTwilio, eventually } from '@platform/testing';
import { DataSource } from 'typeorm';
import { CableSocket, cableUrl, isPush, isType } from '../realtime/cable-socket.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { addMember, bearer, createAccount, type TestAccount } from '../support/identity.js';

/** notify(): the one path every module uses, observed from the outside world. */
describe('notify()', () => {
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let admin: TestAccount;
  let viewer: TestAccount;
  let notify: NotifyService;
  let db: DataSource;

  beforeAll(async () => {
    twilio = await FakeTwilio.start();
    t = await createMailingApiTestApp({
      listen: true,
      config: { phone: twilio.config('+15550000000') },
    });
    admin = await createAccount(t, t.sink, 'admin@notify.example');
    viewer = await addMember(t, t.sink, admin, 'viewer@notify.example', 'viewer');
    notify = t.get(NotifyService);
    db = t.get(DataSource);
  });

  afterAll(async () => {
    await t.close();
    await twilio.close();
  });

  const rowsOf = async (account: TestAccount, category: string) =>
    (await db.query(
      'SELECT id, event_type FROM notification WHERE account_id = $1 AND category_key = $2',
      [account.accountId, category],
    )) as Array<{ id: string; event_type: string }>;

  /** The attempt rows of a notification's delivery over `channel`, in order. */
  const attemptsOf = async (notificationId: string, channel: string) =>
    (await db.query(
      `SELECT a.attempt, a.outcome, a.reason FROM notification_delivery n
         JOIN delivery d ON d.id = n.id JOIN delivery_attempt a ON a.delivery_id = d.id
        WHERE n.notification_id = $1 AND d.channel = $2 ORDER BY a.attempt`,
      [notificationId, channel],
    )) as Array<{ attempt: number; outcome: string; reason: string | null }>;

  const prefer = (
    account: TestAccount,
    preferences: Array<{ category_key: string; channel: string; enabled: boolean }>,
  ) =>
    t
      .request()
      .patch('/notification_preferences')
      .set(bearer(account.jwt))
      .send({ preferences })
      .expect(200);

  it('writes the in-app row, pushes it with the unread count, and e-mails at once', async () => {
    const socket = await CableSocket.open(cableUrl(t.baseUrl, { token: admin.jwt }));
    try {
      await socket.waitFor(isType('welcome'));
      socket.subscribe();
      await socket.waitFor(isType('confirm_subscription'));
      const [outcome] = await notify.notify({
        category: 'billing',
        eventType: 'invoice_issued',
        organizationId: admin.organizationId,
        recipients: [admin.accountId],
        payload: { invoice: 'INV-1' },
        email: { subject: 'Your invoice INV-1', text: 'Invoice INV-1 is ready.' },
      });
      expect(outcome.decision).toMatchObject({ inApp: true, email: 'instant' });
      const frame = await socket.waitFor(isPush('created'));
      const message = frame.message as {
        notification: Record<string, unknown>;
        unread_count: number;
      };
      expect(message.notification).toMatchObject({
        id: outcome.notificationId,
        category: 'billing',
        event_type: 'invoice_issued',
        payload: { invoice: 'INV-1' },
      });
      expect(message.unread_count).toBe(1);
      const mail = await t.sink.waitFor(
        (m) => m.to.includes(admin.login) && m.subject === 'Your invoice INV-1',
      );
      expect(mail.text).toContain('Invoice INV-1 is ready.');
      // The e-mail's record follows its job: sent once the SMTP server took it.
      const record = async () =>
        (await t.get(DataSource).query(
          `SELECT d.status, d.reason, d.attempts FROM notification_delivery n
             JOIN delivery d ON d.id = n.id
            WHERE n.notification_id = $1 AND d.channel = 'email'`,
          [outcome.notificationId],
        )) as Array<{ status: string }>;
      await eventually(record, (rows) => rows[0]?.status === 'sent', 'the e-mail recorded sent');
      expect(await record()).toEqual([{ status: 'sent', reason: null, attempts: 1 }]);
      expect(await attemptsOf(outcome.notificationId!, 'email')).toEqual([
        { attempt: 1, outcome: 'sent', reason: null },
      ]);

      await t
        .request()
        .patch(`/notifications/${outcome.notificationId}/read`)
        .set(bearer(admin.jwt))
        .expect(200);
      const read = await socket.waitFor(isPush('read'));
      expect(read.message).toMatchObject({
        event: 'read',
        unread_count: 0,
        notification: { id: outcome.notificationId },
      });
      await t.request().post('/notifications/mark_all_read').set(bearer(admin.jwt)).expect(200);
      expect((await socket.waitFor(isPush('all_read'))).message).toEqual({
        event: 'all_read',
        unread_count: 0,
      });
    } finally {
      socket.close();
    }
  });

  it('forces mandatory in-app for org admins whatever they saved, but not for other members', async () => {
    await prefer(admin, [{ category_key: 'capability_update', channel: 'in_app', enabled: false }]);
    await prefer(viewer, [
      { category_key: 'capability_update', channel: 'in_app', enabled: false },
    ]);
    await notify.notify({
      category: 'capability_update',
      eventType: 'limit_narrowed',
      organizationId: admin.organizationId,
      recipients: [admin.accountId, viewer.accountId],
      payload: {},
    });
    expect(await rowsOf(admin, 'capability_update')).toHaveLength(1);
    expect(await rowsOf(viewer, 'capability_update')).toHaveLength(0);
  });

  it('sends no e-mail where it is disabled, and holds e-mail for a digest', async () => {
    await prefer(viewer, [{ category_key: 'billing', channel: 'email', enabled: false }]);
    t.sink.clear();
    await notify.notify({
      category: 'billing',
      eventType: 'quiet',
      organizationId: admin.organizationId,
      recipients: [viewer.accountId],
      payload: {},
    });
    await prefer(viewer, [{ category_key: 'billing', channel: 'email', enabled: true }]);
    await t
      .request()
      .patch('/notification_schedule')
      .set(bearer(viewer.jwt))
      .send({ email_mode: 'daily_digest' })
      .expect(200);
    await notify.notify({
      category: 'billing',
      eventType: 'digested',
      organizationId: admin.organizationId,
      recipients: [viewer.accountId],
      payload: {},
      email: { subject: 'For the digest', text: 'later' },
    });
    const pending = (await db.query(
      'SELECT subject FROM pending_email WHERE account_id = $1 AND sent_at IS NULL',
      [viewer.accountId],
    )) as Array<{ subject: string }>;
    expect(pending).toEqual([{ subject: 'For the digest' }]);
    // The held e-mail's delivery waits for the digest, with no attempt made.
    expect(
      await db.query(
        `SELECT d.channel, d.status, d.reason, d.attempts FROM notification_delivery nd
           JOIN delivery d ON d.id = nd.id JOIN notification n ON n.id = nd.notification_id
          WHERE n.event_type = 'digested'`,
      ),
    ).toEqual([{ channel: 'email', status: 'held', reason: 'digest', attempts: 0 }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      t.sink.messages.filter(
        (m) =>
          m.to.includes(viewer.login) && ['[Billing] quiet', 'For the digest'].includes(m.subject),
      ),
    ).toHaveLength(0);
    await t
      .request()
      .patch('/notification_schedule')
      .set(bearer(viewer.jwt))
      .send({ email_mode: 'instant' })
      .expect(200);
  });

  it('skips e-mail and SMS of an absent account except for mandatory-instant categories', async () => {
    await db.query(
      "UPDATE account SET phone_number = '+4915112345678', phone_verified_at = now() WHERE id = $1",
      [admin.accountId],
    );
    await prefer(admin, [
      { category_key: 'billing', channel: 'sms', enabled: true },
      { category_key: 'security', channel: 'sms', enabled: true },
    ]);
    const now = t.clock.now();
    await db.query(
      'INSERT INTO notification_absence (account_id, starts_at, ends_at, created_at) VALUES ($1, $2, $3, $2)',
      [admin.accountId, new Date(now.getTime() - 60_000), new Date(now.getTime() + 3_600_000)],
    );
    t.sink.clear();
    twilio.clear();
    const [billing] = await notify.notify({
      category: 'billing',
      eventType: 'while_away',
      organizationId: admin.organizationId,
      recipients: [admin.accountId],
      payload: {},
      email: { subject: 'Billing while away', text: '-' },
    });
    expect(billing.decision).toMatchObject({ inApp: true, email: 'skip', sms: 'skip' });
    await notify.notify({
      category: 'security',
      eventType: 'new_login',
      organizationId: admin.organizationId,
      recipients: [admin.accountId],
      payload: {},
      email: { subject: 'New login', text: 'Someone logged in' },
      shortText: 'New login to your account',
    });
    await t.sink.waitFor((m) => m.to.includes(admin.login) && m.subject === 'New login');
    const sms = await twilio.waitFor((r) => r.kind === 'sms');
    expect(sms).toMatchObject({
      kind: 'sms',
      to: '+4915112345678',
      body: 'New login to your account',
    });
    expect(t.sink.messages.some((m) => m.subject === 'Billing while away')).toBe(false);
    expect(twilio.requests).toHaveLength(1);
    const deliveries = (await db.query(
      "SELECT d.channel, d.status FROM notification_delivery nd JOIN delivery d ON d.id = nd.id JOIN notification n ON n.id = nd.notification_id WHERE n.event_type = 'new_login' ORDER BY d.channel",
    )) as Array<{ channel: string; status: string }>;
    expect(deliveries.map((d) => d.channel)).toEqual(['email', 'sms']);
    expect(
      await db.query(
        "SELECT d.channel, d.status, d.reason FROM notification_delivery nd JOIN delivery d ON d.id = nd.id JOIN notification n ON n.id = nd.notification_id WHERE n.event_type = 'while_away'",
      ),
    ).toEqual([{ channel: 'sms', status: 'skipped', reason: 'absent' }]);
  });

  it('retries an e-mail the server deferred: a failed attempt 1, then attempt 2 sent', async () => {
    t.sink.deferredRecipients.set(viewer.login.toLowerCase(), 1);
    const [outcome] = await notify.notify({
      category: 'billing',
      eventType: 'deferred_once',
      organizationId: admin.organizationId,
      recipients: [viewer.accountId],
      payload: {},
      email: { subject: 'Deferred once', text: 'second time lucky' },
    });
    const record = async () =>
      (await db.query(
        `SELECT d.source, d.status, d.reason, d.attempts, d.provider_ref IS NOT NULL AS has_ref,
                d.finished_at IS NOT NULL AS finished
           FROM notification_delivery n JOIN delivery d ON d.id = n.id
          WHERE n.notification_id = $1 AND d.channel = 'email'`,
        [outcome.notificationId],
      )) as Array<{ status: string }>;
    await eventually(record, (rows) => rows[0]?.status === 'sent', 'the retried e-mail sent');
    expect(await record()).toEqual([
      {
        source: 'notification',
        status: 'sent',
        reason: null,
        attempts: 2,
        has_ref: true,
        finished: true,
      },
    ]);
    const attempts = await attemptsOf(outcome.notificationId!, 'email');
    expect(attempts).toEqual([
      { attempt: 1, outcome: 'failed', reason: expect.stringContaining('451') },
      { attempt: 2, outcome: 'sent', reason: null },
    ]);
    expect(t.sink.messages.filter((m) => m.subject === 'Deferred once')).toHaveLength(1);
  });

  it('e-mails every recipient of one notification', async () => {
    await notify.notify({
      category: 'platform_incident',
      eventType: 'outage',
      organizationId: admin.organizationId,
      recipients: [admin.accountId, viewer.accountId, admin.accountId],
      payload: {},
      email: { subject: 'Outage in region 1', text: 'We are on it.' },
    });
    for (const login of [admin.login, viewer.login]) {
      await t.sink.waitFor((m) => m.to.includes(login) && m.subject === 'Outage in region 1');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(t.sink.messages.filter((m) => m.subject === 'Outage in region 1')).toHaveLength(2);
  });

  it('notifyEach: delivers each request as notify() would, sharing the reads and writes', async () => {
    const socket = await CableSocket.open(cableUrl(t.baseUrl, { token: viewer.jwt }));
    try {
      await socket.waitFor(isType('welcome'));
      socket.subscribe();
      await socket.waitFor(isType('confirm_subscription'));
      const unreadBefore = Number(
        (
          await db.query(
            'SELECT count(*) AS n FROM notification WHERE account_id = $1 AND read_at IS NULL',
            [viewer.accountId],
          )
        )[0].n,
      );
      // The viewer twice (two pages of one burst), the admin once in another category, and
      // a request for nobody, in one call.
      const outcomes = await notify.notifyEach([
        {
          category: 'alert_escalation',
          eventType: 'alert_escalation',
          organizationId: admin.organizationId,
          recipients: [viewer.accountId],
          channels: ['in_app'],
          payload: { page: 1 },
        },
        {
          category: 'security',
          eventType: 'new_login',
          organizationId: admin.organizationId,
          recipients: [admin.accountId],
          payload: { login: 'each' },
          email: { subject: 'New login (each)', text: 'Someone logged in' },
          shortText: 'New login to your account (each)',
        },
        {
          category: 'alert_escalation',
          eventType: 'alert_escalation',
          organizationId: admin.organizationId,
          recipients: [],
          payload: { page: 0 },
        },
        {
          category: 'alert_escalation',
          eventType: 'alert_escalation',
          organizationId: admin.organizationId,
          recipients: [viewer.accountId],
          channels: ['in_app'],
          payload: { page: 2 },
        },
      ]);
      expect(outcomes.map((o) => o.map((x) => x.accountId))).toEqual([
        [viewer.accountId],
        [admin.accountId],
        [],
        [viewer.accountId],
      ]);
      const payloadOf = async (id: string | null) =>
        (await db.query('SELECT payload FROM notification WHERE id = $1', [id]))[0]?.payload;
      expect(await payloadOf(outcomes[0][0].notificationId)).toEqual({ page: 1 });
      expect(await payloadOf(outcomes[1][0].notificationId)).toEqual({ login: 'each' });
      expect(await payloadOf(outcomes[3][0].notificationId)).toEqual({ page: 2 });
      // Both pushes reach the viewer, each with its own notification.
      const pushed = [
        await socket.waitFor(isPush('created')),
        await socket.waitFor(
          (f) =>
            isPush('created')(f) &&
            (f.message as { notification: { id: string } }).notification.id ===
              outcomes[3][0].notificationId,
        ),
      ].map((f) => f.message as { notification: { id: string }; unread_count: number });
      expect(pushed.map((m) => m.notification.id).sort()).toEqual(
        [outcomes[0][0].notificationId, outcomes[3][0].notificationId].sort(),
      );
      expect(pushed.every((m) => m.unread_count === unreadBefore + 2)).toBe(true);
      // The security request e-mails and texts with its own words; the pages were restricted
      // to in_app.
      await t.sink.waitFor((m) => m.to.includes(admin.login) && m.subject === 'New login (each)');
      await twilio.waitFor(
        (r) => r.kind === 'sms' && r.body === 'New login to your account (each)',
      );
      expect(outcomes[0][0].decision).toMatchObject({ inApp: true, email: 'skip' });
    } finally {
      socket.close();
    }
  });

  it('keeps one in-app notification per account and idempotency key, pushed once', async () => {
    const socket = await CableSocket.open(cableUrl(t.baseUrl, { token: viewer.jwt }));
    try {
      await socket.waitFor(isType('welcome'));
      socket.subscribe();
      await socket.waitFor(isType('confirm_subscription'));
      const page = (n: number, idempotencyKey?: string) => ({
        category: 'alert_escalation',
        eventType: 'alert_escalation',
        organizationId: admin.organizationId,
        recipients: [admin.accountId, viewer.accountId],
        channels: ['in_app' as const],
        payload: { n },
        idempotencyKey,
      });
      const [first] = await notify.notifyEach([page(1, 'escalation-page/7')]);
      // Repeated, beside a request without a key and the same key twice in one call.
      const [again, unkeyed, twice] = await notify.notifyEach([
        page(2, 'escalation-page/7'),
        page(3),
        page(4, 'escalation-page/7'),
      ]);
      const ids = (outcomes: typeof first) => outcomes.map((o) => o.notificationId);
      expect(ids(again)).toEqual(ids(first));
      expect(ids(twice)).toEqual(ids(first));
      expect(
        await db.query(
          `SELECT account_id, payload FROM notification WHERE idempotency_key = $1
            ORDER BY account_id`,
          ['escalation-page/7'],
        ),
      ).toEqual(
        [admin.accountId, viewer.accountId].sort().map((id) => ({
          account_id: id,
          payload: { n: 1 },
        })),
      );
      const [unkeyedPayload] = await db.query<Array<{ payload: unknown }>>(
        'SELECT payload FROM notification WHERE id = $1',
        [unkeyed[1].notificationId],
      );
      expect(unkeyedPayload.payload).toEqual({ n: 3 });
      // Pushes go out in order: the repeat would have come before the unkeyed one.
      await socket.waitFor(
        (f) =>
          isPush('created')(f) &&
          (f.message as { notification: { id: string } }).notification.id ===
            unkeyed[1].notificationId,
      );
      const pushedIds = socket.frames
        .filter(isPush('created'))
        .map((f) => (f.message as { notification: { id: string } }).notification.id);
      expect(pushedIds.filter((id) => id === first[1].notificationId)).toHaveLength(1);
    } finally {
      socket.close();
    }
  });

  it("writes a storm's rows a chunk at a time: each request its own notification, every one pushed", async () => {
    const socket = await CableSocket.open(cableUrl(t.baseUrl, { token: viewer.jwt }));
    try {
      await socket.waitFor(isType('welcome'));
      socket.subscribe();
      await socket.waitFor(isType('confirm_subscription'));
      // Two chunks and one row of a third, and a repeated key across chunks.
      const count = 2 * IN_APP_CHUNK + 1;
      const outcomes = await notify.notifyEach(
        Array.from({ length: count }, (_, n) => ({
          category: 'alert_escalation',
          eventType: 'alert_escalation',
          organizationId: admin.organizationId,
          recipients: [viewer.accountId],
          channels: ['in_app' as const],
          payload: { storm: n },
          idempotencyKey: n === count - 1 ? 'storm/0' : `storm/${n}`,
        })),
      );
      const ids = outcomes.map(([outcome]) => outcome.notificationId);
      const rows: Array<{ id: string; storm: number }> = await db.query(
        `SELECT id, (payload ->> 'storm')::int AS storm FROM notification
          WHERE account_id = $1 AND idempotency_key LIKE 'storm/%'`,
        [viewer.accountId],
      );
      expect(rows).toHaveLength(count - 1);
      const stormOf = new Map(rows.map((row) => [row.id, row.storm]));
      expect(ids.map((id) => stormOf.get(id!))).toEqual(
        Array.from({ length: count }, (_, n) => (n === count - 1 ? 0 : n)),
      );
      const pushed = () =>
        socket.frames
          .filter(isPush('created'))
          .map((f) => (f.message as { notification: { id: string } }).notification.id)
          .filter((id) => stormOf.has(id));
      await eventually(pushed, (ids) => ids.length >= count - 1, 'every row to be pushed');
      expect(new Set(pushed()).size).toBe(count - 1);
      expect(pushed()).toHaveLength(count - 1);
    } finally {
      socket.close();
    }
  });

  it('refuses an unknown category', async () => {
    await expect(
      notify.notify({
        category: 'gossip',
        eventType: 'x',
        organizationId: null,
        recipients: [admin.accountId],
        payload: {},
      }),
    ).rejects.toThrow('Unknown notification category');
  });
});
