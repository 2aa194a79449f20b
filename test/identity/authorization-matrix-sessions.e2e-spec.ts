import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { type AccessPolicy, type DeclaredRoute, declaredRoutes } from '@platform/identity';
import { randomUUID } from 'node:crypto';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import {
  bearer,
  createAccount,
  login,
  mintToken,
  PASSWORD,
  type TestAccount,
} from '../support/identity.js';

const METHODS: Record<number, 'get' | 'post' | 'put' | 'delete' | 'patch'> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.PATCH]: 'patch',
};

/** The session and password routes, with who may call them. */
const ROWS: Array<{
  method: RequestMethod;
  path: string;
  access: 'public' | 'interactive session';
}> = [
  { method: RequestMethod.POST, path: '/logout', access: 'public' },
  { method: RequestMethod.GET, path: '/verify-email', access: 'public' },
  { method: RequestMethod.POST, path: '/password-reset', access: 'public' },
  { method: RequestMethod.GET, path: '/password-reset', access: 'public' },
  { method: RequestMethod.POST, path: '/password-reset/confirm', access: 'public' },
  { method: RequestMethod.POST, path: '/accounts/me/password', access: 'interactive session' },
];

/**
 * Rows of the authorization matrix for the routes that end sessions and change passwords,
 * and for ended sessions on every route: a logged-out JWT, and one issued before a password
 * change, are no credential anywhere.
 */
describe('authorization matrix: sessions and passwords', () => {
  let t: MailingTestApp;
  let routes: DeclaredRoute[];
  let ada: TestAccount;
  let adaToken: string;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    routes = declaredRoutes(t.get(DiscoveryService), t.get(MetadataScanner), t.get(Reflector));
    ada = await createAccount(t, t.sink, 'ada@example.com');
    adaToken = await mintToken(t, ada.jwt, ['organization:*', 'projects:*']);
  });

  afterAll(async () => {
    await t.close();
  });

  const routeOf = (row: (typeof ROWS)[number]) =>
    routes.find((r) => r.method === row.method && r.paths.includes(row.path));

  /** Every non-public route with made-up ids: the credential is refused before they matter. */
  function everyProtectedCall(credential: string) {
    return routes
      .filter((r) => !r.isPublic)
      .flatMap((route) =>
        route.paths.map((path) => ({
          name: `${METHODS[route.method]} ${path}`,
          call: () =>
            t
              .request()
              [METHODS[route.method]](path.replace(/:(\w+)/g, () => randomUUID()))
              .set(bearer(credential))
              .send({}),
        })),
      );
  }

  it('declares each route as the table says', () => {
    for (const row of ROWS) {
      const route = routeOf(row);
      expect({ row: row.path, found: route !== undefined }).toEqual({ row: row.path, found: true });
      const policy = route!.policy as AccessPolicy | undefined;
      expect({ row: row.path, public: route!.isPublic, policy }).toEqual({
        row: row.path,
        public: row.access === 'public',
        policy: row.access === 'public' ? undefined : { scope: 'account', interactiveOnly: true },
      });
    }
  });

  it('answers 401 without credentials, 403 to a static token, on the interactive routes', async () => {
    for (const row of ROWS.filter((r) => r.access === 'interactive session')) {
      const method = METHODS[row.method];
      const anonymous = await t.request()[method](row.path).send({});
      expect([row.path, anonymous.status, anonymous.body.code]).toEqual([
        row.path,
        401,
        'unauthorized',
      ]);
      const token = await t.request()[method](row.path).set(bearer(adaToken)).send({});
      expect([row.path, token.status, token.body.code]).toEqual([
        row.path,
        403,
        'interactive_session_required',
      ]);
      const session = await t.request()[method](row.path).set(bearer(ada.jwt)).send({});
      expect([row.path, session.status, session.body.code]).toEqual([
        row.path,
        422,
        'validation_failed',
      ]);
    }
  });

  it('answers the public routes without credentials, never 401 or 5xx', async () => {
    for (const row of ROWS.filter((r) => r.access === 'public')) {
      const res = await t.request()[METHODS[row.method]](row.path).send({});
      expect({ path: row.path, status: res.status < 500 && res.status !== 401 }).toEqual({
        path: row.path,
        status: true,
      });
    }
  });

  it('refuses a logged-out JWT on every non-public route with 401', async () => {
    const jwt = await login(t, ada.login);
    await t.request().post('/logout').set(bearer(jwt)).expect(204);
    const failures: string[] = [];
    for (const { name, call } of everyProtectedCall(jwt)) {
      const res = await call();
      if (res.status !== 401 || res.body.code !== 'unauthorized')
        failures.push(`${name}: ${res.status} ${res.body.code}`);
    }
    expect(failures).toEqual([]);
  });

  it('refuses a JWT issued before a password change on every non-public route with 401', async () => {
    const before = await login(t, ada.login);
    const newPassword = 'the password after the change';
    await t
      .request()
      .post('/accounts/me/password')
      .set(bearer(ada.jwt))
      .send({ current_password: PASSWORD, password: newPassword, 'password-confirm': newPassword })
      .expect(200);
    const failures: string[] = [];
    for (const { name, call } of everyProtectedCall(before)) {
      const res = await call();
      if (res.status !== 401 || res.body.code !== 'unauthorized')
        failures.push(`${name}: ${res.status} ${res.body.code}`);
    }
    expect(failures).toEqual([]);
    // The static token minted before the change still works.
    await t.request().get('/accounts/me').set(bearer(adaToken)).expect(200);
  });
});
