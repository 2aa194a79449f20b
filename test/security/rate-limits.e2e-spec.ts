import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RATE_LIMITS } from '@platform/rate-limits';
import { FakeTwilio, eventually } from '@platform/testing';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, signupBody, type TestAccount } from '../support/identity.js';

/** Lets anything wrongly queued reach its fake, so a count that must not grow is checked late. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** The 429 of a full limit: the envelope, `Retry-After` in whole seconds, the limit's size. */
function expectRateLimited(
  res: Response,
  rule: { limit: number; windowSeconds: number },
  retryAfter = rule.windowSeconds,
): void {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({
    code: 'rate_limited',
    retryable: true,
    details: { limit: rule.limit, window_seconds: rule.windowSeconds },
  });
  expect(res.headers['retry-after']).toBe(String(retryAfter));
}

/**
 * The limits on what makes the platform send e-mail or texts to someone (sign-up, verification
 * and reset mail, invitations, phone codes), counted in Redis per target and per client
 * address. A refused request changes nothing and sends nothing. The clock stands still unless
 * a test moves it, so every window is exact.
 */
describe('rate limits', () => {
  let t: MailingTestApp;
  let twilio: FakeTwilio;
  let admin: TestAccount;

  beforeAll(async () => {
    twilio = await FakeTwilio.start();
    t = await createMailingApiTestApp({
      config: {
        rateLimitExemptNetworks: [],
        trustedProxies: ['loopback'],
        phone: twilio.config('+15550000000'),
      },
    });
    admin = await createAccount(t, t.sink, 'admin@limits.example', 'Limits Org');
  });

  afterAll(async () => {
    await t?.close();
    await twilio?.close();
  });

  const mailsTo = (address: string) =>
    t.sink.messages.filter((m) => m.to.some((to) => to.toLowerCase() === address)).length;
  const accountExists = async (login: string) =>
    (await t.get(DataSource).query('SELECT 1 FROM account WHERE login = $1', [login])).length > 0;
  const signup = async (login: string, from: string) =>
    t
      .request()
      .post('/create-account')
      .set('X-Forwarded-For', from)
      .send(await signupBody(t, { login, organization_name: `Org ${login}` }));

  it('refuses the 11th sign-up from one address within an hour, creating nothing', async () => {
    const rule = RATE_LIMITS.signupPerAddress;
    for (let n = 0; n < rule.limit; n++) {
      expect((await signup(`signup-${n}@limits.example`, '203.0.113.10')).status).toBe(201);
    }
    const refused = await signup('signup-extra@limits.example', '203.0.113.10');
    expectRateLimited(refused, rule);
    expect(await accountExists('signup-extra@limits.example')).toBe(false);
    await settle();
    expect(mailsTo('signup-extra@limits.example')).toBe(0);

    // Another address has its own count; the same /64 of IPv6 shares one.
    expect((await signup('signup-other@limits.example', '203.0.113.11')).status).toBe(201);
    for (let n = 0; n < rule.limit; n++) {
      const res = await signup(`signup-v6-${n}@limits.example`, `2001:db8:5:6::${n + 1}`);
      expect(res.status).toBe(201);
    }
    expectRateLimited(await signup('signup-v6-extra@limits.example', '2001:db8:5:6:ffff::1'), rule);

    // Once the oldest sign-up is an hour old, there is room again.
    const start = t.clock.now();
    t.clock.advance({ seconds: rule.windowSeconds });
    try {
      expect((await signup('signup-later@limits.example', '203.0.113.10')).status).toBe(201);
    } finally {
      t.clock.set(start);
    }
  });

  it('sends at most 3 verification e-mails an hour per login, known or not', async () => {
    const rule = RATE_LIMITS.verificationMailPerLogin;
    const login = 'unverified@limits.example';
    expect((await signup(login, '203.0.113.30')).status).toBe(201);
    const resend = (who: string) =>
      t
        .request()
        .post('/resend-verification')
        .set('X-Forwarded-For', '203.0.113.31')
        .send({ login: who });
    for (let n = 0; n < rule.limit; n++) expect((await resend(login)).status).toBe(202);
    await eventually(() => mailsTo(login) === 1 + rule.limit);
    // Another spelling of the login is the same login.
    expectRateLimited(await resend('Unverified@LIMITS.example'), rule);
    await settle();
    expect(mailsTo(login)).toBe(1 + rule.limit);

    // An unknown login answers alike, so the limit tells nothing about who has an account.
    for (let n = 0; n < rule.limit; n++)
      expect((await resend('nobody@limits.example')).status).toBe(202);
    expectRateLimited(await resend('nobody@limits.example'), rule);
  });

  it('refuses the 11th verification e-mail requested from one address', async () => {
    const rule = RATE_LIMITS.verificationMailPerAddress;
    const resend = (n: number) =>
      t
        .request()
        .post('/resend-verification')
        .set('X-Forwarded-For', '203.0.113.40')
        .send({ login: `probe-${n}@limits.example` });
    for (let n = 0; n < rule.limit; n++) expect((await resend(n)).status).toBe(202);
    expectRateLimited(await resend(rule.limit), rule);
  });

  it('sends at most 3 password reset e-mails an hour per login, and 10 per address', async () => {
    const perLogin = RATE_LIMITS.passwordResetPerLogin;
    const reset = (who: string, from: string) =>
      t.request().post('/password-reset').set('X-Forwarded-For', from).send({ login: who });
    for (let n = 0; n < perLogin.limit; n++) {
      expect((await reset(admin.login, '203.0.113.50')).status).toBe(202);
    }
    const resetMails = () =>
      t.sink.messages.filter((m) => m.to.includes(admin.login) && /password/i.test(m.subject));
    await eventually(() => resetMails().length === perLogin.limit);
    expectRateLimited(await reset(admin.login, '203.0.113.51'), perLogin);
    for (let n = 0; n < perLogin.limit; n++) {
      expect((await reset('ghost@limits.example', '203.0.113.52')).status).toBe(202);
    }
    expectRateLimited(await reset('ghost@limits.example', '203.0.113.52'), perLogin);

    const perAddress = RATE_LIMITS.passwordResetPerAddress;
    for (let n = 0; n < perAddress.limit; n++) {
      expect((await reset(`someone-${n}@limits.example`, '203.0.113.53')).status).toBe(202);
    }
    expectRateLimited(await reset('someone-else@limits.example', '203.0.113.53'), perAddress);
    await settle();
    expect(resetMails()).toHaveLength(perLogin.limit);
  });

  it('invites one address at most 5 times a day, and an organization at most 50 times an hour', async () => {
    const invite = (email: string) =>
      t
        .request()
        .post(`/invitations?organization_id=${admin.organizationId}`)
        .set(bearer(admin.jwt))
        .send({ email, role: 'viewer' });
    const perInvitee = RATE_LIMITS.invitationsPerInvitee;
    for (let n = 0; n < perInvitee.limit; n++) {
      expect((await invite('target@limits.example')).status).toBe(201);
    }
    const refused = await invite('TARGET@limits.example');
    expectRateLimited(refused, perInvitee);
    const [{ count }] = await t
      .get(DataSource)
      .query<Array<{ count: string }>>(
        "SELECT count(*) FROM invitation WHERE email = 'target@limits.example'",
      );
    expect(Number(count)).toBe(perInvitee.limit);

    const perOrganization = RATE_LIMITS.invitationsPerOrganization;
    for (let n = perInvitee.limit; n < perOrganization.limit; n++) {
      expect((await invite(`invitee-${n}@limits.example`)).status).toBe(201);
    }
    expectRateLimited(await invite('one-more@limits.example'), perOrganization);
  });

  it('texts at most 5 verification codes an hour per account and per number', async () => {
    const rule = RATE_LIMITS.phoneCodesPerAccount;
    const setPhone = (account: TestAccount, number: string) =>
      t.request().put('/accounts/me/phone').set(bearer(account.jwt)).send({ phone_number: number });
    for (let n = 0; n < rule.limit; n++) {
      expect((await setPhone(admin, `+4915100000${100 + n}`)).status).toBe(202);
    }
    await eventually(() => twilio.requests.length >= rule.limit);
    const texted = twilio.requests.length;
    expectRateLimited(await setPhone(admin, '+4915100000199'), rule);
    // Nothing changed: the pending number is still the last one that was texted a code.
    const [pending] = await t
      .get(DataSource)
      .query<Array<{ phone_number: string }>>(
        'SELECT phone_number FROM phone_verification WHERE account_id = $1',
        [admin.accountId],
      );
    expect(pending.phone_number).toBe(`+4915100000${100 + rule.limit - 1}`);

    const perNumber = RATE_LIMITS.phoneCodesPerNumber;
    const others = await Promise.all(
      Array.from({ length: perNumber.limit + 1 }, (_, n) =>
        createAccount(t, t.sink, `phone-${n}@limits.example`),
      ),
    );
    for (const other of others.slice(0, perNumber.limit)) {
      expect((await setPhone(other, '+4915100000777')).status).toBe(202);
    }
    expectRateLimited(await setPhone(others[perNumber.limit], '+4915100000777'), perNumber);
    await eventually(() => twilio.requests.length >= texted + perNumber.limit);
    await settle();
    expect(twilio.requests.filter((r) => r.to === '+4915100000199')).toEqual([]);
    expect(twilio.requests.filter((r) => r.to === '+4915100000777')).toHaveLength(perNumber.limit);
    expect(twilio.requests.length).toBe(texted + perNumber.limit);
  });
});
