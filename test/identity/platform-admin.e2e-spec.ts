import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { DATABASE_POOL_SIZE } from '@platform/database';
import {
  PasswordHasher,
  ensurePlatformAdmin,
  type PlatformAdminOutcome,
  PlatformAdminStartup,
} from '@platform/identity';
import { createTestApp, type SmtpSink, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { ApiModule } from '../../apps/api/api.module.js';
import {
  createApiTestApp,
  createMailingApiTestApp,
  type MailingTestApp,
} from '../support/api-app.js';
import {
  bearer,
  createAccount,
  login,
  PASSWORD,
  signupBody,
  type TestAccount,
} from '../support/identity.js';

async function accountsWithLogin(
  t: TestApp,
  loginName: string,
): Promise<Array<{ is_platform_admin: boolean; verified: boolean }>> {
  return t
    .get(DataSource)
    .query(
      'SELECT is_platform_admin, email_verified_at IS NOT NULL AS verified FROM account WHERE lower(login) = lower($1)',
      [loginName],
    );
}

/**
 * Calls at once, as that many processes starting together would make them: one per pooled
 * connection, so all of them are in their transactions at the same time (each call costs an
 * argon2 hash or verification, so more would only queue for a connection).
 */
function ensureAtOnce(
  t: TestApp,
  admin: { login: string; password: string },
): Promise<PlatformAdminOutcome[]> {
  const dataSource = t.get(DataSource);
  return Promise.all(
    Array.from({ length: DATABASE_POOL_SIZE }, () =>
      ensurePlatformAdmin(dataSource, admin, t.get(PasswordHasher), t.clock.now()),
    ),
  );
}

const tally = (outcomes: PlatformAdminOutcome[]) =>
  outcomes.reduce<Record<string, number>>((counts, outcome) => {
    counts[outcome] = (counts[outcome] ?? 0) + 1;
    return counts;
  }, {});

describe('platform admin', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let customer: TestAccount;
  const admin = { login: 'root@platform.example', password: 'platform admin password 1' };

  beforeAll(async () => {
    t = await createMailingApiTestApp({ config: { platformAdmin: admin } });
    sink = t.sink;
    customer = await createAccount(t, sink, 'customer@example.com');
  });

  afterAll(async () => {
    await t.close();
  });

  it('is created verified at start-up from PLATFORM_ADMIN_LOGIN and PLATFORM_ADMIN_PASSWORD', async () => {
    const jwt = await login(t, admin.login, admin.password);
    const me = await t.request().get('/accounts/me').set(bearer(jwt)).expect(200);
    expect(me.body.data).toMatchObject({
      login: admin.login,
      platform_admin: true,
      memberships: [],
    });
  });

  it('passes every check in any organization', async () => {
    const jwt = await login(t, admin.login, admin.password);
    const projects = `/organizations/${customer.organizationId}/projects`;
    await t
      .request()
      .post(projects)
      .set(bearer(jwt))
      .send({ name: 'set up by support' })
      .expect(201);
    await t
      .request()
      .get(`/memberships?organization_id=${customer.organizationId}`)
      .set(bearer(jwt))
      .expect(200);
  });

  it('still needs to name the organization, and unknown ones are 404', async () => {
    const jwt = await login(t, admin.login, admin.password);
    expect((await t.request().get('/memberships').set(bearer(jwt)).expect(403)).body.code).toBe(
      'organization_required',
    );
    await t
      .request()
      .get('/organizations/00000000-0000-4000-8000-000000000000/projects')
      .set(bearer(jwt))
      .expect(404);
  });

  it('is ensured idempotently, applying a changed password', async () => {
    const dataSource = t.get(DataSource);
    expect(await ensurePlatformAdmin(dataSource, admin, t.get(PasswordHasher), t.clock.now())).toBe(
      'unchanged',
    );
    const rotated = { login: admin.login, password: 'a rotated admin password' };
    try {
      expect(
        await ensurePlatformAdmin(dataSource, rotated, t.get(PasswordHasher), t.clock.now()),
      ).toBe('updated');
      expect(
        await ensurePlatformAdmin(dataSource, rotated, t.get(PasswordHasher), t.clock.now()),
      ).toBe('unchanged');
      expect(await accountsWithLogin(t, admin.login)).toEqual([
        { is_platform_admin: true, verified: true },
      ]);
      await t.request().post('/login').send(admin).expect(401);
      await login(t, admin.login, rotated.password);
    } finally {
      expect(
        await ensurePlatformAdmin(dataSource, admin, t.get(PasswordHasher), t.clock.now()),
      ).toBe('updated');
    }
  });

  it('is created once when many processes ensure it at once, none of them failing', async () => {
    const racing = { login: 'Race@Platform.example', password: 'a racing admin password' };
    expect(tally(await ensureAtOnce(t, racing))).toEqual({
      created: 1,
      unchanged: DATABASE_POOL_SIZE - 1,
    });
    expect(await accountsWithLogin(t, racing.login)).toEqual([
      { is_platform_admin: true, verified: true },
    ]);
    const jwt = await login(t, 'race@platform.example', racing.password);
    const me = await t.request().get('/accounts/me').set(bearer(jwt)).expect(200);
    expect(me.body.data).toMatchObject({ login: racing.login, platform_admin: true });
  });

  it('promotes and verifies an account a signup made, once, when many ensure it at once', async () => {
    const signedUp = 'signed-up@example.com';
    await t
      .request()
      .post('/create-account')
      .send(await signupBody(t, { login: signedUp, organization_name: 'Promoted' }))
      .expect(201);
    expect(await accountsWithLogin(t, signedUp)).toEqual([
      { is_platform_admin: false, verified: false },
    ]);
    const promoted = { login: signedUp, password: 'the configured admin password' };
    expect(tally(await ensureAtOnce(t, promoted))).toEqual({
      updated: 1,
      unchanged: DATABASE_POOL_SIZE - 1,
    });
    expect(await accountsWithLogin(t, signedUp)).toEqual([
      { is_platform_admin: true, verified: true },
    ]);
    await t.request().post('/login').send({ login: signedUp, password: PASSWORD }).expect(401);
    await login(t, signedUp, promoted.password);
  });

  it('creates an organization it then administers, and works in it', async () => {
    const jwt = await login(t, admin.login, admin.password);
    const created = await t
      .request()
      .post('/organizations')
      .set(bearer(jwt))
      .send({ name: '  Acme  ' })
      .expect(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Acme',
      role: 'admin',
      created_at: expect.any(String),
    });
    const organizations = await t.request().get('/organizations').set(bearer(jwt)).expect(200);
    expect(organizations.body.data).toContainEqual(created.body.data);
    const project = await t
      .request()
      .post(`/organizations/${created.body.data.id}/projects`)
      .set(bearer(jwt))
      .send({ name: 'production' })
      .expect(201);
    expect(project.body.data).toMatchObject({
      organization_id: created.body.data.id,
      name: 'production',
    });
    const members = await t
      .request()
      .get(`/memberships?organization_id=${created.body.data.id}`)
      .set(bearer(jwt))
      .expect(200);
    expect(members.body.data).toEqual([
      expect.objectContaining({ login: admin.login, role: 'admin' }),
    ]);
  });

  it('refuses a blank or overlong organization name, creating nothing', async () => {
    const jwt = await login(t, admin.login, admin.password);
    const before = await t.get(DataSource).query('SELECT count(*)::int AS n FROM organization');
    for (const name of ['   ', 'x'.repeat(201), 42]) {
      const res = await t
        .request()
        .post('/organizations')
        .set(bearer(jwt))
        .send({ name })
        .expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).toEqual(['name']);
    }
    const after = await t.get(DataSource).query('SELECT count(*)::int AS n FROM organization');
    expect(after).toEqual(before);
  });

  it('lets no one else create an organization', async () => {
    const res = await t
      .request()
      .post('/organizations')
      .set(bearer(customer.jwt))
      .send({ name: 'Not mine' })
      .expect(403);
    expect(res.body.code).toBe('forbidden');
    await t.request().post('/organizations').send({ name: 'Anonymous' }).expect(401);
  });

  it('is not granted to ordinary accounts', async () => {
    const me = await t.request().get('/accounts/me').set(bearer(customer.jwt)).expect(200);
    expect(me.body.data.platform_admin).toBe(false);
  });
});

describe('platform admin at API start-up', () => {
  const admin = { login: 'late@platform.example', password: 'platform admin password 2' };
  let first: TestApp;
  let replica: TestApp | undefined;

  beforeAll(async () => {
    first = await createApiTestApp();
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await replica?.close();
    await first.close();
  });

  it('does not hold start-up back when the database refuses it, and retries until it succeeds', async () => {
    const dataSource = first.get(DataSource);
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const log = jest.spyOn(Logger.prototype, 'log');
    // Every attempt fails while the table is away, as it would while PostgreSQL is unreachable.
    await dataSource.query('ALTER TABLE account RENAME TO account_away');
    try {
      // createTestApp itself: createApiTestApp would wait for the admin.
      replica = await createTestApp((config) => ApiModule.forRoot(config), {
        shareWith: first,
        config: { platformAdmin: admin },
      });
      await replica.request().get('/health/live').expect(200);
      const notEnsured = () =>
        warn.mock.calls.filter(([message]) =>
          String(message).startsWith(`platform admin ${admin.login} not ensured yet`),
        );
      for (let waited = 0; notEnsured().length === 0; waited += 50) {
        if (waited > 10_000) throw new Error('the first attempt did not fail');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await dataSource.query('ALTER TABLE account_away RENAME TO account');
    }
    expect(await replica.get(PlatformAdminStartup).ensured).toBe(true);
    await login(replica, admin.login, admin.password);
    // The failure was logged once, and so was the recovery.
    const about = (calls: unknown[][]) =>
      calls.map(([message]) => String(message)).filter((message) => message.includes(admin.login));
    expect(about(warn.mock.calls)).toHaveLength(1);
    expect(about(log.mock.calls)).toEqual([
      expect.stringMatching(/^platform admin late@platform\.example created$/),
      expect.stringMatching(
        /^platform admin late@platform\.example ensured after \d+ failure\(s\)$/,
      ),
    ]);
  });
});
