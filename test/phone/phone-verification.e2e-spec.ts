import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeTwilio, type TwilioRequest } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, type TestAccount } from '../support/identity.js';

const NUMBER = '+4915123456789';

describe('phone number verification', () => {
  let t: MailingTestApp;
  let fake: FakeTwilio;

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
  });

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  // Five codes an hour per number (RATE_LIMITS.phoneCodesPerNumber), and most tests text
  // NUMBER: each test starts an hour after the last.
  beforeEach(() => {
    t.clock.advance({ hours: 1 });
  });

  let accounts = 0;
  const newAccount = () => createAccount(t, t.sink, `phone${++accounts}@example.com`);

  /** Sets the number and returns the code from the SMS the fake provider receives. */
  async function requestCode(account: TestAccount, phoneNumber = NUMBER): Promise<string> {
    const before = fake.requests.length;
    await t
      .request()
      .put('/accounts/me/phone')
      .set(bearer(account.jwt))
      .send({ phone_number: phoneNumber })
      .expect(202);
    const sms = await fake.waitFor(
      (r) => fake.requests.indexOf(r) >= before && r.kind === 'sms' && r.to === phoneNumber,
    );
    const code = /\b(\d{6})\b/.exec((sms as Extract<TwilioRequest, { kind: 'sms' }>).body);
    expect(code).not.toBeNull();
    return code![1];
  }

  const verify = (account: TestAccount, code: string) =>
    t.request().post('/accounts/me/phone/verify').set(bearer(account.jwt)).send({ code });

  const me = async (account: TestAccount): Promise<Record<string, unknown>> => {
    const res = await t.request().get('/accounts/me').set(bearer(account.jwt)).expect(200);
    return res.body.data as Record<string, unknown>;
  };

  const wrong = (code: string) => (code === '000000' ? '111111' : '000000');

  it('verifies a number with the code sent to it by SMS', async () => {
    const account = await newAccount();
    expect(await me(account)).toMatchObject({ phone_number: null, phone_verified: false });

    const before = fake.requests.length;
    const res = await t
      .request()
      .put('/accounts/me/phone')
      .set(bearer(account.jwt))
      .send({ phone_number: NUMBER })
      .expect(202);
    expect(res.body.data).toEqual({
      phone_number: NUMBER,
      expires_at: new Date(t.clock.nowMs() + 10 * 60_000).toISOString(),
    });

    const sms = await fake.waitFor((r) => fake.requests.indexOf(r) >= before);
    expect(sms).toMatchObject({
      kind: 'sms',
      to: NUMBER,
      from: '+15550000000',
      auth: { username: 'AC_test', password: 'secret' },
    });
    const code = /\b(\d{6})\b/.exec((sms as { body: string }).body)![1];

    // Pending only: the account has no number until it is verified.
    expect(await me(account)).toMatchObject({ phone_number: null, phone_verified: false });

    t.clock.advance({ minutes: 9 });
    const verified = await verify(account, code).expect(200);
    expect(verified.body.data).toEqual({ phone_number: NUMBER, phone_verified: true });
    expect(await me(account)).toMatchObject({ phone_number: NUMBER, phone_verified: true });

    const [row] = await t
      .get(DataSource)
      .query(`SELECT phone_verified_at FROM account WHERE id = $1`, [account.accountId]);
    expect(new Date(row.phone_verified_at).toISOString()).toBe(t.clock.now().toISOString());

    // The code is used up with the verification.
    const again = await verify(account, code).expect(404);
    expect(again.body.code).toBe('not_found');
  });

  it('stores only a hash of the code', async () => {
    const account = await newAccount();
    const code = await requestCode(account);
    const [row] = await t
      .get(DataSource)
      .query(`SELECT code_hash, attempts FROM phone_verification WHERE account_id = $1`, [
        account.accountId,
      ]);
    expect(row.attempts).toBe(0);
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.code_hash).not.toContain(code);
  });

  it('refuses a wrong code and says how many attempts are left', async () => {
    const account = await newAccount();
    const code = await requestCode(account);

    const res = await verify(account, wrong(code)).expect(422);
    expect(res.body).toMatchObject({
      code: 'invalid_code',
      source_service: 'notifications',
      details: { attempts_left: 4 },
    });
    expect(await me(account)).toMatchObject({ phone_number: null, phone_verified: false });

    await verify(account, code).expect(200);
  });

  it('expires the verification after five wrong codes, then accepts a new code', async () => {
    const account = await newAccount();
    const code = await requestCode(account);

    for (const left of [4, 3, 2, 1, 0]) {
      const res = await verify(account, wrong(code)).expect(422);
      expect(res.body).toMatchObject({ code: 'invalid_code', details: { attempts_left: left } });
    }
    const exhausted = await verify(account, code).expect(422);
    expect(exhausted.body.code).toBe('verification_expired');
    expect(exhausted.body.message).toMatch(/new code/);
    expect(await me(account)).toMatchObject({ phone_number: null, phone_verified: false });

    const fresh = await requestCode(account);
    await verify(account, fresh).expect(200);
    expect(await me(account)).toMatchObject({ phone_number: NUMBER, phone_verified: true });
  });

  it('expires the code after 10 minutes', async () => {
    const account = await newAccount();
    const code = await requestCode(account);

    t.clock.advance({ minutes: 10 });
    const res = await verify(account, code).expect(422);
    expect(res.body.code).toBe('verification_expired');
    expect(await me(account)).toMatchObject({ phone_number: null, phone_verified: false });
  });

  it('keeps the verified number until a new one is verified, and a new code replaces the old', async () => {
    const account = await newAccount();
    await verify(account, await requestCode(account)).expect(200);

    const other = '+15557654321';
    const first = await requestCode(account, other);
    const second = await requestCode(account, other);
    expect(await me(account)).toMatchObject({ phone_number: NUMBER, phone_verified: true });

    if (first !== second) await verify(account, first).expect(422);
    await verify(account, second).expect(200);
    expect(await me(account)).toMatchObject({ phone_number: other, phone_verified: true });
  });

  it('refuses a number that is not E.164 and sends nothing', async () => {
    const account = await newAccount();
    const before = fake.requests.length;
    for (const phone_number of [
      '015123456789',
      '+49 151 23456789',
      '+0151234567',
      '+1234',
      4915123456789,
    ]) {
      const res = await t
        .request()
        .put('/accounts/me/phone')
        .set(bearer(account.jwt))
        .send({ phone_number })
        .expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.fields).toEqual([expect.objectContaining({ field: 'phone_number' })]);
    }
    const missing = await t.request().put('/accounts/me/phone').set(bearer(account.jwt)).send({});
    expect(missing.status).toBe(422);

    const badCode = await verify(account, '12ab56').expect(422);
    expect(badCode.body.code).toBe('validation_failed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.requests.length).toBe(before);
  });

  it('answers 404 when no verification is pending', async () => {
    const account = await newAccount();
    const res = await verify(account, '123456').expect(404);
    expect(res.body.code).toBe('not_found');
  });

  it('removes the number', async () => {
    const account = await newAccount();
    await verify(account, await requestCode(account)).expect(200);

    await t.request().delete('/accounts/me/phone').set(bearer(account.jwt)).expect(204);
    expect(await me(account)).toMatchObject({ phone_number: null, phone_verified: false });
    // Idempotent.
    await t.request().delete('/accounts/me/phone').set(bearer(account.jwt)).expect(204);
  });

  it('requires credentials', async () => {
    await t.request().put('/accounts/me/phone').send({ phone_number: NUMBER }).expect(401);
    await t.request().post('/accounts/me/phone/verify').send({ code: '123456' }).expect(401);
    await t.request().delete('/accounts/me/phone').expect(401);
  });
});
