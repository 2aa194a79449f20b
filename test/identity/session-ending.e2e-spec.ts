import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import {
  createApiTestApp,
  createMailingApiTestApp,
  type MailingTestApp,
} from '../support/api-app.js';
import {
  bearer,
  createAccount,
  login,
  mintToken,
  PASSWORD,
  type TestAccount,
} from '../support/identity.js';

const NEW_PASSWORD = 'a much longer new passphrase';

interface BrowserSession {
  jwt: string;
  csrf: string;
  cookie: string;
}

function cookieValues(setCookie: string[] | string | undefined): Record<string, string> {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  return Object.fromEntries(
    list.map((c) => {
      const [name, ...value] = c.split(';')[0].split('=');
      return [name, value.join('=')];
    }),
  );
}

async function browserLogin(t: TestApp, loginName: string, password = PASSWORD) {
  const res = await t.request().post('/login').send({ login: loginName, password }).expect(200);
  const cookies = cookieValues(res.headers['set-cookie']);
  return {
    jwt: cookies._hq_session,
    csrf: cookies._hq_csrf,
    cookie: `_hq_session=${cookies._hq_session}; _hq_csrf=${cookies._hq_csrf}`,
  } satisfies BrowserSession;
}

/** The answer to GET /accounts/me with that JWT as a bearer and as the session cookie. */
async function statusesOf(t: TestApp, jwt: string): Promise<[number, number]> {
  const asBearer = await t.request().get('/accounts/me').set(bearer(jwt));
  const asCookie = await t.request().get('/accounts/me').set('Cookie', `_hq_session=${jwt}`);
  for (const res of [asBearer, asCookie]) {
    if (res.status === 401) expect(res.body.code).toBe('unauthorized');
  }
  return [asBearer.status, asCookie.status];
}

describe('ending sessions', () => {
  let t: MailingTestApp;
  let replica: TestApp;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    // Another API replica on the same database and Redis.
    replica = await createApiTestApp({ shareWith: t });
  });

  afterAll(async () => {
    await replica.close();
    await t.close();
  });

  describe('POST /logout', () => {
    let ada: TestAccount;

    beforeAll(async () => {
      ada = await createAccount(t, t.sink, 'ada@example.com');
    });

    it('refuses the JWT it was sent, as a bearer and as a cookie, on every replica', async () => {
      const jwt = await login(t, ada.login);
      expect(await statusesOf(t, jwt)).toEqual([200, 200]);
      expect(await statusesOf(replica, jwt)).toEqual([200, 200]);

      await t.request().post('/logout').set(bearer(jwt)).expect(204);

      expect(await statusesOf(t, jwt)).toEqual([401, 401]);
      expect(await statusesOf(replica, jwt)).toEqual([401, 401]);
    });

    it('ends a cookie session, clears its cookies, and leaves the other sessions alone', async () => {
      const browser = await browserLogin(t, ada.login);
      const other = await login(t, ada.login);
      const res = await replica.request().post('/logout').set('Cookie', browser.cookie).expect(204);
      const cleared = cookieValues(res.headers['set-cookie']);
      expect(cleared).toEqual({ _hq_session: '', _hq_csrf: '' });

      expect(await statusesOf(t, browser.jwt)).toEqual([401, 401]);
      expect(await statusesOf(replica, browser.jwt)).toEqual([401, 401]);
      expect(await statusesOf(t, other)).toEqual([200, 200]);
      expect(await statusesOf(t, ada.jwt)).toEqual([200, 200]);
    });

    it('holds in a replica started after the logout (nothing lives in one process)', async () => {
      const jwt = await login(t, ada.login);
      await t.request().post('/logout').set(bearer(jwt)).expect(204);
      const restarted = await createApiTestApp({ shareWith: t });
      try {
        expect(await statusesOf(restarted, jwt)).toEqual([401, 401]);
      } finally {
        await restarted.close();
      }
    });

    it('answers 204 without a session, and leaves a static token working', async () => {
      await t.request().post('/logout').expect(204);
      await t.request().post('/logout').set(bearer('not.a.jwt')).expect(204);
      const token = await mintToken(t, ada.jwt, ['organization:read']);
      await t.request().post('/logout').set(bearer(token)).expect(204);
      await t.request().get('/accounts/me').set(bearer(token)).expect(200);
    });

    it('keeps a revoked id until its JWT would have expired, then drops it', async () => {
      const db = t.get(DataSource);
      const jwt = await login(t, ada.login);
      await t.request().post('/logout').set(bearer(jwt)).expect(204);
      const count = async () =>
        (await db.query('SELECT count(*)::int AS n FROM revoked_session'))[0].n as number;
      const before = await count();
      expect(before).toBeGreaterThanOrEqual(1);

      const start = t.clock.now();
      t.clock.advance({ hours: 13 });
      try {
        const later = await login(t, ada.login);
        await t.request().post('/logout').set(bearer(later)).expect(204);
        // The expired ones went; the one just revoked stays.
        expect(await count()).toBe(1);
      } finally {
        t.clock.set(start);
      }
    });
  });

  describe('POST /accounts/me/password', () => {
    let grace: TestAccount;

    beforeAll(async () => {
      grace = await createAccount(t, t.sink, 'grace@example.com');
    });

    const change = (app: TestApp, jwt: string, body: Record<string, unknown>) =>
      app.request().post('/accounts/me/password').set(bearer(jwt)).send(body);

    it('is for login sessions only: a static token gets 403 interactive_session_required', async () => {
      const token = await mintToken(t, grace.jwt, ['organization:*']);
      const res = await change(t, token, {
        current_password: PASSWORD,
        password: NEW_PASSWORD,
        'password-confirm': NEW_PASSWORD,
      }).expect(403);
      expect(res.body.code).toBe('interactive_session_required');
      await t.request().post('/accounts/me/password').send({}).expect(401);
    });

    it('refuses a wrong current password with 422 naming current_password', async () => {
      const res = await change(t, grace.jwt, {
        current_password: 'not the password at all',
        password: NEW_PASSWORD,
        'password-confirm': NEW_PASSWORD,
      }).expect(422);
      expect(res.body).toMatchObject({ code: 'validation_failed', source_service: 'identity' });
      expect(res.body.details.fields).toEqual([
        { field: 'current_password', messages: [expect.stringContaining('current_password')] },
      ]);
    });

    it('applies the signup rules to the new password', async () => {
      const short = await change(t, grace.jwt, {
        current_password: PASSWORD,
        password: 'too short',
        'password-confirm': 'too short',
      }).expect(422);
      expect(short.body.details.fields.map((f: { field: string }) => f.field)).toEqual([
        'password',
      ]);
      const mismatch = await change(t, grace.jwt, {
        current_password: PASSWORD,
        password: NEW_PASSWORD,
        'password-confirm': `${NEW_PASSWORD}!`,
      }).expect(422);
      expect(mismatch.body.details.fields.map((f: { field: string }) => f.field)).toEqual([
        'password-confirm',
      ]);
      const long = 'x'.repeat(257);
      await change(t, grace.jwt, {
        current_password: PASSWORD,
        password: long,
        'password-confirm': long,
      }).expect(422);
      await login(t, grace.login);
    });

    it('ends every other session and JWT; this session continues with a fresh one; static tokens stay', async () => {
      const current = await browserLogin(t, grace.login);
      const other = await login(t, grace.login);
      const token = await mintToken(t, grace.jwt, ['projects:read']);

      const res = await t
        .request()
        .post('/accounts/me/password')
        .set('Cookie', current.cookie)
        .set('X-CSRF-Token', current.csrf)
        .send({
          current_password: PASSWORD,
          password: NEW_PASSWORD,
          'password-confirm': NEW_PASSWORD,
        })
        .expect(200);
      expect(res.body.data).toMatchObject({ account_id: grace.accountId, login: grace.login });
      const fresh = cookieValues(res.headers['set-cookie']);
      expect(res.headers.authorization).toBe(`Bearer ${fresh._hq_session}`);
      expect(fresh._hq_csrf).toMatch(/^[\w-]{24,}$/);

      // The other sessions, the request's own old JWT included, on both replicas.
      for (const jwt of [other, grace.jwt, current.jwt]) {
        expect(await statusesOf(t, jwt)).toEqual([401, 401]);
        expect(await statusesOf(replica, jwt)).toEqual([401, 401]);
      }
      expect(await statusesOf(t, fresh._hq_session)).toEqual([200, 200]);
      expect(await statusesOf(replica, fresh._hq_session)).toEqual([200, 200]);
      await t
        .request()
        .get(`/organizations/${grace.organizationId}/projects`)
        .set(bearer(token))
        .expect(200);

      const old = await t
        .request()
        .post('/login')
        .send({ login: grace.login, password: PASSWORD })
        .expect(401);
      expect(old.body.code).toBe('invalid_credentials');
      // A login in the very second of the change is a new session, not an ended one.
      const again = await login(t, grace.login, NEW_PASSWORD);
      expect(await statusesOf(t, again)).toEqual([200, 200]);

      const [entry] = await t.get(DataSource).query(
        `SELECT organization_id, actor_account_id, credential_kind, action, target_type, target_id
             FROM audit_log WHERE action = 'passwords.change'`,
      );
      expect(entry).toEqual({
        organization_id: grace.organizationId,
        actor_account_id: grace.accountId,
        credential_kind: 'session',
        action: 'passwords.change',
        target_type: 'account',
        target_id: grace.accountId,
      });
    });

    it('counts wrong current passwords as failed logins: the sixth guess is 429', async () => {
      const carol = await createAccount(t, t.sink, 'carol@example.com');
      const wrong = { password: NEW_PASSWORD, 'password-confirm': NEW_PASSWORD };
      for (let i = 0; i < 5; i += 1) {
        await change(t, carol.jwt, { ...wrong, current_password: `wrong guess ${i}` }).expect(422);
      }
      const res = await change(t, carol.jwt, { ...wrong, current_password: PASSWORD }).expect(429);
      expect(res.body.code).toBe('too_many_attempts');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      const blocked = await t
        .request()
        .post('/login')
        .send({ login: carol.login, password: PASSWORD })
        .expect(429);
      expect(blocked.body.code).toBe('too_many_attempts');
    });
  });
});
