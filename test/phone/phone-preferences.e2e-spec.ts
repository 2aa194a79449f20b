import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NotifyService } from '@platform/notifications';
import { FakeTwilio, type TwilioRequest, eventually } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, type TestAccount } from '../support/identity.js';

const VERIFIED_NUMBER = '+4915111111111';
const UNVERIFIED_NUMBER = '+4915122222222';

describe('phone and SMS preferences need a verified number', () => {
  let t: MailingTestApp;
  let fake: FakeTwilio;
  let verified: TestAccount;
  let unverified: TestAccount;

  /** Sets the number through the API and returns the code the fake provider received. */
  async function requestCode(account: TestAccount, phoneNumber: string): Promise<string> {
    await t
      .request()
      .put('/accounts/me/phone')
      .set(bearer(account.jwt))
      .send({ phone_number: phoneNumber })
      .expect(202);
    const sms = await fake.waitFor((r) => r.kind === 'sms' && r.to === phoneNumber);
    const code = /\b(\d{6})\b/.exec((sms as Extract<TwilioRequest, { kind: 'sms' }>).body);
    expect(code).not.toBeNull();
    return code![1];
  }

  const optIn = (account: TestAccount) =>
    t
      .request()
      .patch('/notification_preferences')
      .set(bearer(account.jwt))
      .send({
        preferences: [
          { category_key: 'billing', channel: 'sms', enabled: true },
          { category_key: 'billing', channel: 'phone', enabled: true },
        ],
      })
      .expect(200);

  beforeAll(async () => {
    fake = await FakeTwilio.start({ accountSid: 'AC_test', authToken: 'secret' });
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
    verified = await createAccount(t, t.sink, 'verified@phone.example');
    unverified = await createAccount(t, t.sink, 'unverified@phone.example');

    const code = await requestCode(verified, VERIFIED_NUMBER);
    await t
      .request()
      .post('/accounts/me/phone/verify')
      .set(bearer(verified.jwt))
      .send({ code })
      .expect(200);
    // The number is stored, but its code is never entered.
    await requestCode(unverified, UNVERIFIED_NUMBER);

    await optIn(verified);
    await optIn(unverified);
  });

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('texts and calls only the verified number, and records why the other got nothing', async () => {
    // A number set through the API stays pending, off the account, until its code is entered.
    const me = await t.request().get('/accounts/me').set(bearer(unverified.jwt)).expect(200);
    expect(me.body.data).toMatchObject({ phone_number: null, phone_verified: false });
    expect(
      await t
        .get(DataSource)
        .query('SELECT phone_number FROM phone_verification WHERE account_id = $1', [
          unverified.accountId,
        ]),
    ).toEqual([{ phone_number: UNVERIFIED_NUMBER }]);
    fake.clear();

    const outcomes = await t.get(NotifyService).notify({
      category: 'billing',
      eventType: 'invoice_overdue',
      organizationId: null,
      recipients: [verified.accountId, unverified.accountId],
      payload: {},
      email: { subject: 'Invoice overdue', text: 'Please pay INV-9.' },
      shortText: 'Invoice INV-9 is overdue',
    });
    const decisionOf = (account: TestAccount) =>
      outcomes.find((o) => o.accountId === account.accountId)!.decision;
    expect(decisionOf(verified)).toMatchObject({ sms: 'send', phone: 'send' });
    expect(decisionOf(unverified)).toMatchObject({ sms: 'skip', phone: 'skip' });
    expect(decisionOf(unverified).reasons).toContain('phone_not_verified');

    const db = t.get(DataSource);
    const deliveries = (account: TestAccount) => async () =>
      (await db.query(
        `SELECT d.channel, d.status, d.reason FROM notification_delivery n
           JOIN delivery d ON d.id = n.id
          WHERE n.account_id = $1 AND d.channel IN ('sms', 'phone') ORDER BY d.channel`,
        [account.accountId],
      )) as Array<{ channel: string; status: string; reason: string | null }>;

    // Both of the verified account's deliveries were sent, so the worker has processed
    // everything this notification enqueued for phones.
    expect(
      await eventually(
        deliveries(verified),
        (rows) => rows.length === 2 && rows.every((row) => row.status === 'sent'),
      ),
    ).toEqual([
      { channel: 'phone', status: 'sent', reason: null },
      { channel: 'sms', status: 'sent', reason: null },
    ]);
    expect(
      fake.requests.map((r) => [r.kind, r.to, r.kind === 'sms' ? r.body : null]).sort(),
    ).toEqual([
      ['call', VERIFIED_NUMBER, null],
      ['sms', VERIFIED_NUMBER, 'Invoice INV-9 is overdue'],
    ]);

    expect(await deliveries(unverified)()).toEqual([
      { channel: 'phone', status: 'skipped', reason: 'phone_not_verified' },
      { channel: 'sms', status: 'skipped', reason: 'phone_not_verified' },
    ]);
  });
});
