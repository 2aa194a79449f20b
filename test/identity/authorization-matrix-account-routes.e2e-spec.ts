import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import {
  type AccessPolicy,
  Authenticated,
  type DeclaredRoute,
  declaredRoutes,
  MembershipsRepository,
  SCOPE_RESOURCES,
} from '@platform/identity';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  createApiTestApp,
  createMailingApiTestApp,
  type MailingTestApp,
} from '../support/api-app.js';
import { bearer, createAccount, mintToken, type TestAccount } from '../support/identity.js';

const METHODS: Record<number, 'get' | 'post' | 'put' | 'delete' | 'patch'> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.PATCH]: 'patch',
};

/**
 * What a static token needs on each account-wide route: the scope to mint, or `session` where
 * only login sessions may act (the account's own settings, which serve every organization, and
 * platform-wide actions).
 */
const TOKEN_NEEDS: Record<string, string> = {
  'GET /accounts/me': 'organization:read',
  'GET /organizations': 'organization:read',
  'GET /notifications': 'notifications:read',
  'GET /notifications/unread_count': 'notifications:read',
  'GET /notification_categories': 'notifications:read',
  'GET /broadcasts/active': 'notifications:read',
  'PATCH /notifications/:id/read': 'notifications:write',
  'POST /notifications/mark_all_read': 'notifications:write',
  'GET /notification_absences': 'session',
  'POST /notification_absences': 'session',
  'DELETE /notification_absences/:id': 'session',
  'GET /notification_preferences': 'session',
  'PATCH /notification_preferences': 'session',
  'GET /notification_schedule': 'session',
  'PATCH /notification_schedule': 'session',
  'PUT /accounts/me/phone': 'session',
  'POST /accounts/me/phone/verify': 'session',
  'DELETE /accounts/me/phone': 'session',
  'POST /broadcasts/:id/dismiss': 'session',
  'POST /admin/broadcasts': 'session',
  'POST /organizations': 'session',
  'POST /admin/platform_incidents': 'session',
  'GET /admin/platform_incidents': 'session',
  'GET /admin/platform_incidents/:id': 'session',
  'PATCH /admin/platform_incidents/:id': 'session',
  'POST /accounts/me/password': 'session',
  'PUT /accounts/me/email': 'session',
  'POST /accounts/me/email/verify': 'session',
  'GET /accounts/me/email/verify': 'session',
  'DELETE /accounts/me/email/pending': 'session',
};

/**
 * The account-wide routes (no organization in the path) walked like the authorization matrix
 * walks the others: an organization-B token of an account that also belongs to organization A
 * needs each route's scope, and never reaches the session-only ones.
 */
describe('authorization matrix: account-wide routes', () => {
  let t: MailingTestApp;
  let routes: DeclaredRoute[];
  let owner: TestAccount;
  let orgB: string;

  const key = (route: DeclaredRoute, path: string) =>
    `${METHODS[route.method].toUpperCase()} ${path}`;

  /** Each account-wide route and path, with what a token needs there. */
  const accountRoutes = () =>
    routes
      .filter((r) => (r.policy as AccessPolicy | undefined)?.scope === 'account')
      .flatMap((route) =>
        route.paths.map((path) => ({ route, path, needs: TOKEN_NEEDS[key(route, path)] })),
      );

  function call(route: DeclaredRoute, path: string, token: string) {
    const concrete = path.replace(/:\w+/g, () => randomUUID());
    return t.request()[METHODS[route.method]](concrete).set(bearer(token)).send({});
  }

  /** An organization-B token of the owner with these scopes. */
  const tokenInB = (scopes: string[]) =>
    mintToken(t, owner.jwt, scopes, `?organization_id=${orgB}`);

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    routes = declaredRoutes(t.get(DiscoveryService), t.get(MetadataScanner), t.get(Reflector));
    owner = await createAccount(t, t.sink, 'owner@account-routes.example', 'Org A');
    const other = await createAccount(t, t.sink, 'other@account-routes.example', 'Org B');
    orgB = other.organizationId;
    await t
      .get(MembershipsRepository)
      .add(t.get(DataSource).manager, orgB, owner.accountId, 'admin', t.clock.now());
  });

  afterAll(async () => {
    await t.close();
  });

  it('knows what a token needs on every account-wide route, as the routes declare it', () => {
    const found = accountRoutes();
    expect(found.map(({ route, path }) => key(route, path)).sort()).toEqual(
      Object.keys(TOKEN_NEEDS).sort(),
    );
    for (const { route, path, needs } of found) {
      const policy = route.policy as AccessPolicy;
      const declared = policy.interactiveOnly
        ? 'session'
        : `${policy.scopeResource}:${policy.scopeLevel === 'read' ? 'read' : 'write'}`;
      expect({ route: key(route, path), needs: declared }).toEqual({
        route: key(route, path),
        needs,
      });
    }
  });

  it('answers 403 interactive_session_required to a token with every scope on session-only routes', async () => {
    const everything = await tokenInB(SCOPE_RESOURCES.map((r) => `${r}:*`));
    const failures: string[] = [];
    for (const { route, path } of accountRoutes().filter((r) => r.needs === 'session')) {
      const res = await call(route, path, everything);
      if (res.status !== 403 || res.body.code !== 'interactive_session_required')
        failures.push(`${key(route, path)}: ${res.status} ${res.body.code}`);
    }
    expect(failures).toEqual([]);
  });

  it("answers 403 insufficient_scope to a token with every scope but the route's", async () => {
    const failures: string[] = [];
    for (const { route, path, needs } of accountRoutes().filter((r) => r.needs !== 'session')) {
      const [resource, level] = needs.split(':');
      const others = SCOPE_RESOURCES.filter((r) => r !== resource).map((r) => `${r}:*`);
      // A write route also refuses the resource's read scope.
      const tokens = [await tokenInB(others)];
      if (level === 'write') tokens.push(await tokenInB([...others, `${resource}:read`]));
      for (const token of tokens) {
        const res = await call(route, path, token);
        if (res.status !== 403 || res.body.code !== 'insufficient_scope')
          failures.push(`${key(route, path)}: ${res.status} ${res.body.code}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("lets a token with only the route's scope through", async () => {
    const failures: string[] = [];
    for (const { route, path, needs } of accountRoutes().filter((r) => r.needs !== 'session')) {
      const res = await call(route, path, await tokenInB([needs]));
      // 404 for the random ids of PATCH /notifications/:id/read: past the guard.
      if (![200, 201, 404].includes(res.status) || res.body.code === 'insufficient_scope')
        failures.push(`${key(route, path)}: ${res.status} ${res.body.code}`);
    }
    expect(failures).toEqual([]);
  });

  it('serves login sessions on every account-wide route as before', async () => {
    const failures: string[] = [];
    for (const { route, path } of accountRoutes()) {
      const res = await call(route, path, owner.jwt);
      // Platform-admin routes refuse other accounts; the rest get past the guard (a 404 for
      // random ids, a 422 for the empty body).
      const refused = (route.policy as AccessPolicy).platformAdmin;
      const passed = refused
        ? res.status === 403 && res.body.code === 'forbidden'
        : res.status < 500 && ![401, 403].includes(res.status);
      if (!passed) failures.push(`${key(route, path)}: ${res.status} ${res.body.code}`);
    }
    expect(failures).toEqual([]);
  });

  it('refuses to start an application with an account-wide route that names no token scope', async () => {
    @Controller('account-open')
    class AccountOpenController {
      @Get()
      @Authenticated({ scope: 'account' })
      open(): string {
        return 'open';
      }
    }
    await expect(createApiTestApp({ controllers: [AccountOpenController] })).rejects.toThrow(
      'Account-wide routes without a token scope (scopeResource and scopeLevel) or interactiveOnly: AccountOpenController.open',
    );
  });
});
