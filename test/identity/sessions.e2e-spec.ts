import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SmtpSink } from '@platform/testing';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, PASSWORD, type TestAccount } from '../support/identity.js';

function cookiesOf(setCookie: string[] | string | undefined): Record<string, string> {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  return Object.fromEntries(list.map((c) => [c.split('=')[0], c]));
}

function cookieValue(header: string): string {
  return header.split(';')[0].split('=').slice(1).join('=');
}

describe('login and sessions', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let ada: TestAccount;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    sink = t.sink;
    ada = await createAccount(t, sink, 'ada@example.com');
  });

  afterAll(async () => {
    await t.close();
  });

  describe('POST /login', () => {
    it('returns the JWT in the Authorization header and sets the session and CSRF cookies', async () => {
      const res = await t
        .request()
        .post('/login')
        .send({ login: 'ADA@example.com', password: PASSWORD })
        .expect(200);
      expect(res.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
      expect(res.body.data).toMatchObject({ account_id: ada.accountId, login: 'ada@example.com' });
      const cookies = cookiesOf(res.headers['set-cookie']);
      expect(cookies._hq_session).toMatch(/HttpOnly/);
      expect(cookies._hq_session).toMatch(/Secure/);
      expect(cookies._hq_session).toMatch(/SameSite=Lax/);
      expect(cookieValue(cookies._hq_session)).toBe(
        res.headers.authorization.slice('Bearer '.length),
      );
      expect(cookies._hq_csrf).toMatch(/Secure/);
      expect(cookies._hq_csrf).not.toMatch(/HttpOnly/);
      expect(cookieValue(cookies._hq_csrf).length).toBeGreaterThanOrEqual(24);
    });

    it('answers a wrong password and an unknown login identically', async () => {
      const wrong = await t
        .request()
        .post('/login')
        .send({ login: 'ada@example.com', password: 'not the password' })
        .expect(401);
      const unknown = await t
        .request()
        .post('/login')
        .send({ login: 'nobody@example.com', password: 'not the password' })
        .expect(401);
      for (const res of [wrong, unknown]) {
        expect(res.body.code).toBe('invalid_credentials');
        expect(res.headers.authorization).toBeUndefined();
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      expect(wrong.body.message).toBe(unknown.body.message);
    });

    it('throttles repeated failures for one login with 429 and Retry-After', async () => {
      const target = 'throttled@example.com';
      for (let i = 0; i < 5; i += 1) {
        await t
          .request()
          .post('/login')
          .send({ login: target, password: 'wrong password!' })
          .expect(401);
      }
      const res = await t
        .request()
        .post('/login')
        .send({ login: target, password: 'wrong password!' })
        .expect(429);
      expect(res.body).toMatchObject({ code: 'too_many_attempts', retryable: true });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // Other logins are unaffected.
      await t
        .request()
        .post('/login')
        .send({ login: 'ada@example.com', password: PASSWORD })
        .expect(200);
    });

    it('refuses a malformed body with 422', async () => {
      const res = await t.request().post('/login').send({ login: 'ada@example.com' }).expect(422);
      expect(res.body.code).toBe('validation_failed');
    });
  });

  describe('credentials', () => {
    it('accepts the bearer JWT and refuses a missing or forged one with 401', async () => {
      await t.request().get('/accounts/me').set(bearer(ada.jwt)).expect(200);
      const none = await t.request().get('/accounts/me').expect(401);
      expect(none.body.code).toBe('unauthorized');
      expect(none.headers['www-authenticate']).toBe('Bearer');
      const [header, payload] = ada.jwt.split('.');
      await t
        .request()
        .get('/accounts/me')
        .set(bearer(`${header}.${payload}.forged`))
        .expect(401);
      await t.request().get('/accounts/me').set('Authorization', 'Basic abc').expect(401);
    });

    it('expires the session JWT', async () => {
      const start = t.clock.now();
      t.clock.advance({ hours: 13 });
      try {
        const res = await t.request().get('/accounts/me').set(bearer(ada.jwt)).expect(401);
        expect(res.body.code).toBe('unauthorized');
      } finally {
        t.clock.set(start);
      }
    });

    it('does not accept a JWT signed with another key', async () => {
      const { SignJWT } = await import('jose');
      const forged = await new SignJWT({ typ: 'session' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(ada.accountId)
        .setIssuer('platform')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('another-secret-key-another-secret-key'));
      await t.request().get('/accounts/me').set(bearer(forged)).expect(401);
    });
  });

  describe('cookie sessions and CSRF', () => {
    let session: string;
    let csrf: string;

    beforeAll(async () => {
      const res = await t
        .request()
        .post('/login')
        .send({ login: 'ada@example.com', password: PASSWORD })
        .expect(200);
      const cookies = cookiesOf(res.headers['set-cookie']);
      session = cookieValue(cookies._hq_session);
      csrf = cookieValue(cookies._hq_csrf);
    });

    const project = (suffix: string) => ({ name: `via cookie ${suffix}` });
    const projectsPath = () => `/organizations/${ada.organizationId}/projects`;

    it('authenticates safe requests with the session cookie alone', async () => {
      const res = await t
        .request()
        .get('/accounts/me')
        .set('Cookie', `_hq_session=${session}; _hq_csrf=${csrf}`)
        .expect(200);
      expect(res.body.data.id).toBe(ada.accountId);
    });

    it('refuses an unsafe cookie request without the X-CSRF-Token header', async () => {
      const res = await t
        .request()
        .post(projectsPath())
        .set('Cookie', `_hq_session=${session}; _hq_csrf=${csrf}`)
        .send(project('a'))
        .expect(403);
      expect(res.body.code).toBe('invalid_csrf_token');
    });

    it('refuses a wrong X-CSRF-Token', async () => {
      const res = await t
        .request()
        .post(projectsPath())
        .set('Cookie', `_hq_session=${session}; _hq_csrf=${csrf}`)
        .set('X-CSRF-Token', `${csrf.slice(0, -1)}x`)
        .send(project('b'))
        .expect(403);
      expect(res.body.code).toBe('invalid_csrf_token');
    });

    it('accepts an unsafe cookie request whose header matches the CSRF cookie', async () => {
      const res = await t
        .request()
        .post(projectsPath())
        .set('Cookie', `_hq_session=${session}; _hq_csrf=${csrf}`)
        .set('X-CSRF-Token', csrf)
        .send(project('c'))
        .expect(201);
      expect(res.body.data.name).toBe('via cookie c');
    });

    it('refuses a CSRF header without the CSRF cookie', async () => {
      const res = await t
        .request()
        .post(projectsPath())
        .set('Cookie', `_hq_session=${session}`)
        .set('X-CSRF-Token', csrf)
        .send(project('f'))
        .expect(403);
      expect(res.body.code).toBe('invalid_csrf_token');
    });

    it('guards PATCH and DELETE by cookie the same way', async () => {
      const cookie = `_hq_session=${session}; _hq_csrf=${csrf}`;
      const minted = await t
        .request()
        .post('/tokens')
        .set(bearer(ada.jwt))
        .send({ token: { name: 'csrf target', scopes: ['projects:read'] } })
        .expect(201);
      const tokenId = minted.body.data.token_id as string;
      const members = await t.request().get('/memberships').set(bearer(ada.jwt)).expect(200);
      const own = (members.body.data as Array<{ id: string; account_id: string }>).find(
        (m) => m.account_id === ada.accountId,
      )!;

      const patch = await t
        .request()
        .patch(`/memberships/${own.id}`)
        .set('Cookie', cookie)
        .send({ role: 'admin' })
        .expect(403);
      expect(patch.body.code).toBe('invalid_csrf_token');
      const remove = await t
        .request()
        .delete(`/tokens/${tokenId}`)
        .set('Cookie', cookie)
        .expect(403);
      expect(remove.body.code).toBe('invalid_csrf_token');
      const still = await t.request().get('/tokens').set(bearer(ada.jwt)).expect(200);
      expect((still.body.data as Array<{ token_id: string }>).map((tk) => tk.token_id)).toContain(
        tokenId,
      );

      await t
        .request()
        .delete(`/tokens/${tokenId}`)
        .set('Cookie', cookie)
        .set('X-CSRF-Token', csrf)
        .expect(204);
      await t
        .request()
        .patch(`/memberships/${own.id}`)
        .set('Cookie', cookie)
        .set('X-CSRF-Token', csrf)
        .send({ role: 'admin' })
        .expect(200);
    });

    it('never asks bearer requests for a CSRF token', async () => {
      await t.request().post(projectsPath()).set(bearer(ada.jwt)).send(project('d')).expect(201);
    });

    it('lets the bearer win over cookies', async () => {
      await t
        .request()
        .post(projectsPath())
        .set(bearer(ada.jwt))
        .set('Cookie', `_hq_session=garbage; _hq_csrf=x`)
        .send(project('e'))
        .expect(201);
    });

    it('clears both cookies on logout', async () => {
      const res = await t.request().post('/logout').expect(204);
      const cookies = cookiesOf(res.headers['set-cookie']);
      expect(cookies._hq_session).toMatch(/Expires=Thu, 01 Jan 1970/);
      expect(cookies._hq_csrf).toMatch(/Expires=Thu, 01 Jan 1970/);
    });
  });

  it('runs the version check before authentication', async () => {
    const res = await t.request().get('/accounts/me').set('API-Version', '9').expect(400);
    expect(res.body.code).toBe('unsupported_api_version');
  });
});
