import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NotifyService } from '@platform/notifications';
import { FakeTwilio } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, type TestAccount } from '../support/identity.js';

const NUMBER = '+4915100000042';

/** notify() restricted to some channels: the others are neither sent nor recorded. */
describe('notify() restricted to channels', () => {
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let admin: TestAccount;
  let notify: NotifyService;
  let db: DataSource;

  beforeAll(async () => {
    twilio = await FakeTwilio.start();
    t = await createMailingApiTestApp({ config: { phone: twilio.config() } });
    admin = await createAccount(t, t.sink, 'admin@channels.example');
    notify = t.get(NotifyService);
    db = t.get(DataSource);
    // Every channel is open to this account: a verified number, phone and SMS opted in.
    await db.query(
      'UPDATE account SET phone_number = $2, phone_verified_at = now() WHERE id = $1',
      [admin.accountId, NUMBER],
    );
    await t
      .request()
      .patch('/notification_preferences')
      .set(bearer(admin.jwt))
      .send({
        preferences: [
          { category_key: 'capability_update', channel: 'phone', enabled: true },
          { category_key: 'capability_update', channel: 'sms', enabled: true },
        ],
      })
      .expect(200);
  });

  afterAll(async () => {
    await t.close();
    await twilio.close();
  });

  const send = (eventType: string, channels?: Array<'in_app' | 'email' | 'phone' | 'sms'>) =>
    notify.notify({
      category: 'capability_update',
      eventType,
      organizationId: admin.organizationId,
      recipients: [admin.accountId],
      payload: { event: eventType },
      email: { subject: `Subject ${eventType}`, text: `Text ${eventType}` },
      shortText: `Short ${eventType}`,
      ...(channels ? { channels } : {}),
    });
  const notifications = async (eventType: string) =>
    (await db.query('SELECT id FROM notification WHERE account_id = $1 AND event_type = $2', [
      admin.accountId,
      eventType,
    ])) as Array<{ id: string }>;
  const deliveryChannels = async (since: Date) =>
    (
      (await db.query(
        `SELECT d.channel FROM notification_delivery n JOIN delivery d ON d.id = n.id
          WHERE n.account_id = $1 AND d.created_at >= $2
          ORDER BY d.channel`,
        [admin.accountId, since],
      )) as Array<{ channel: string }>
    ).map((row) => row.channel);

  it('delivers every channel the rules allow when no restriction is given', async () => {
    const since = t.clock.advance({ minutes: 1 });
    const [outcome] = await send('open');
    expect(outcome.decision).toMatchObject({
      inApp: true,
      email: 'instant',
      phone: 'send',
      sms: 'send',
    });
    expect(await notifications('open')).toHaveLength(1);
    expect(await deliveryChannels(since)).toEqual(['email', 'phone', 'sms']);
    await t.sink.waitFor((m) => m.to.includes(admin.login) && m.subject === 'Subject open');
    await twilio.waitFor((r) => r.kind === 'sms' && r.body === 'Short open');
    await twilio.waitFor((r) => r.kind === 'call' && r.twiml.includes('Short open'));
  });

  it('restricted to in_app: writes only the in-app notification, nothing else sent or recorded', async () => {
    const since = t.clock.advance({ minutes: 1 });
    const [outcome] = await send('in_app_only', ['in_app']);
    expect(outcome.decision).toMatchObject({
      inApp: true,
      email: 'skip',
      phone: 'skip',
      sms: 'skip',
    });
    expect(outcome.notificationId).toEqual((await notifications('in_app_only'))[0]?.id);
    expect(await deliveryChannels(since)).toEqual([]);
    // A later unrestricted notification overtakes nothing: only its own e-mail and texts arrive.
    await send('after');
    await t.sink.waitFor((m) => m.subject === 'Subject after');
    await twilio.waitFor((r) => r.kind === 'sms' && r.body === 'Short after');
    await twilio.waitFor((r) => r.kind === 'call' && r.twiml.includes('Short after'));
    expect(t.sink.messages.filter((m) => m.subject === 'Subject in_app_only')).toHaveLength(0);
    expect(
      twilio.requests.filter((r) =>
        (r.kind === 'sms' ? r.body : r.twiml).includes('Short in_app_only'),
      ),
    ).toHaveLength(0);
  });

  it('restricted to email: no in-app notification, the e-mail goes out', async () => {
    const since = t.clock.advance({ minutes: 1 });
    const [outcome] = await send('email_only', ['email']);
    expect(outcome.notificationId).toBeNull();
    expect(outcome.decision).toMatchObject({
      inApp: false,
      email: 'instant',
      phone: 'skip',
      sms: 'skip',
    });
    expect(await notifications('email_only')).toHaveLength(0);
    expect(await deliveryChannels(since)).toEqual(['email']);
    await t.sink.waitFor((m) => m.to.includes(admin.login) && m.subject === 'Subject email_only');
  });

  it('a channel left out records no skipped delivery for an opted-in account', async () => {
    await db.query('UPDATE account SET phone_verified_at = NULL WHERE id = $1', [admin.accountId]);
    try {
      const since = t.clock.advance({ minutes: 1 });
      await send('unverified_restricted', ['in_app']);
      expect(await deliveryChannels(since)).toEqual([]);
      const later = t.clock.advance({ minutes: 1 });
      await send('unverified_open', ['in_app', 'sms']);
      const rows = (await db.query(
        `SELECT d.channel, d.status, d.reason FROM notification_delivery n
           JOIN delivery d ON d.id = n.id
          WHERE n.account_id = $1 AND d.created_at >= $2`,
        [admin.accountId, later],
      )) as Array<Record<string, string>>;
      expect(rows).toEqual([{ channel: 'sms', status: 'skipped', reason: 'phone_not_verified' }]);
    } finally {
      await db.query('UPDATE account SET phone_verified_at = now() WHERE id = $1', [
        admin.accountId,
      ]);
    }
  });
});
