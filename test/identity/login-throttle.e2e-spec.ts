import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import type { Response } from 'supertest';
import {
  createApiTestApp,
  createMailingApiTestApp,
  type MailingTestApp,
} from '../support/api-app.js';
import { createAccount, PASSWORD, signupBody, type TestAccount } from '../support/identity.js';

function attempt(t: TestApp, loginName: string, password: string, forwardedFor?: string) {
  const request = t.request().post('/login').send({ login: loginName, password });
  return forwardedFor ? request.set('X-Forwarded-For', forwardedFor) : request;
}

function statusCounts(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
}

function expectThrottled(res: Response): void {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({ code: 'too_many_attempts', retryable: true });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
}

describe('login throttling', () => {
  let t: MailingTestApp;
  let ida: TestAccount;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    ida = await createAccount(t, t.sink, 'ida@example.com');
  });

  afterAll(async () => {
    await t.close();
  });

  it('evaluates at most 5 of 30 concurrent wrong passwords: the others are 429', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => attempt(t, ida.login, `wrong password ${i}`)),
    );
    // A 401 is only answered after the password was checked.
    expect(statusCounts(responses)).toEqual({ 401: 5, 429: 25 });
    for (const res of responses.filter((r) => r.status === 429)) expectThrottled(res);

    expectThrottled(await attempt(t, ida.login, PASSWORD));
    const start = t.clock.now();
    t.clock.advance({ minutes: 15 });
    try {
      await attempt(t, ida.login, PASSWORD).expect(200);
    } finally {
      t.clock.set(start);
    }
  });

  it('counts every spelling of a login on one counter, and reaches one account with them', async () => {
    const spellings = [
      'İDA@example.com',
      'ＩＤＡ@ｅｘａｍｐｌｅ.ｃｏｍ',
      'ıda@example.com',
      'IDA@EXAMPLE.COM',
      ' ida@example.com ',
    ];
    const start = t.clock.now();
    t.clock.advance({ minutes: 16 });
    try {
      for (const spelling of spellings) {
        const res = await attempt(t, spelling, 'not the password').expect(401);
        expect(res.body.code).toBe('invalid_credentials');
      }
      expectThrottled(await attempt(t, 'ida@example.com', PASSWORD));
      expectThrottled(await attempt(t, 'İda@example.com', PASSWORD));

      t.clock.advance({ minutes: 16 });
      const res = await attempt(t, 'ＩＤＡ@example.com', PASSWORD).expect(200);
      expect(res.body.data.account_id).toBe(ida.accountId);
      expect(res.body.data.login).toBe('ida@example.com');
    } finally {
      t.clock.set(start);
    }
  });

  it('refuses to sign up a second account under another spelling of a login', async () => {
    for (const spelling of [
      'İDA@example.com',
      'ＩＤＡ@example.com',
      'ıda@example.com',
      'Ida@Example.com',
    ]) {
      const res = await t
        .request()
        .post('/create-account')
        .send(await signupBody(t, { login: spelling, organization_name: `Copy ${spelling}` }))
        .expect(409);
      expect(res.body.code).toBe('login_taken');
    }
  });
});

describe('login throttling by client address', () => {
  let t: MailingTestApp;
  let proxied: TestApp;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    // The same deployment behind a reverse proxy on 127.0.0.1, trusted to name the client.
    proxied = await createApiTestApp({ shareWith: t, config: { trustedProxies: ['loopback'] } });
  });

  afterAll(async () => {
    await proxied.close();
    await t.close();
  });

  /** 20 wrong passwords for 20 logins at once, each from `client(i)`: all are evaluated. */
  async function twentyFailures(app: TestApp, prefix: string, client: (i: number) => string) {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        attempt(app, `${prefix}-${i}@example.com`, 'a wrong password', client(i)),
      ),
    );
    expect(statusCounts(responses)).toEqual({ 401: 20 });
  }

  it('allows 20 failures per address across logins, then refuses every login from it', async () => {
    const owner = await createAccount(t, t.sink, 'owner@example.com');
    const client = '203.0.113.7';
    // A successful login is no failure: twenty more are let through after it.
    await attempt(proxied, owner.login, PASSWORD, client).expect(200);
    await twentyFailures(proxied, 'guess', () => client);
    expectThrottled(await attempt(proxied, 'guess-new@example.com', 'a wrong password', client));
    expectThrottled(await attempt(proxied, owner.login, PASSWORD, client));
    // Other clients behind the same proxy are not affected.
    await attempt(proxied, owner.login, PASSWORD, '203.0.113.8').expect(200);
    await attempt(proxied, 'guess-0@example.com', 'a wrong password', '198.51.100.1').expect(401);
  }, 120_000);

  it('counts an IPv6 client by its /64, whichever address of it the guesses come from', async () => {
    await twentyFailures(proxied, 'v6', (i) => `2001:db8:7:7::${i + 1}`);
    expectThrottled(await attempt(proxied, 'v6-new@example.com', 'wrong', '2001:db8:7:7:ffff::1'));
    await attempt(proxied, 'v6-new@example.com', 'wrong', '2001:db8:7:8::1').expect(401);
  }, 120_000);

  it('ignores X-Forwarded-For without a trusted proxy: the socket address is counted', async () => {
    await twentyFailures(t, 'direct', (i) => `192.0.2.${i + 1}`);
    expectThrottled(await attempt(t, 'direct-new@example.com', 'wrong', '192.0.2.200'));
    await attempt(proxied, 'owner@example.com', PASSWORD, '198.51.100.2').expect(200);
  }, 120_000);
});
