import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { PlatformAdminBootstrap } from '@platform/identity';
import type { SmtpSink } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, login, type TestAccount } from '../support/identity.js';

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
    const bootstrap = t.get(PlatformAdminBootstrap);
    await bootstrap.onApplicationBootstrap();
    const config = t.get<AppConfig>(APP_CONFIG);
    const original = config.platformAdmin;
    config.platformAdmin = { login: admin.login, password: 'a rotated admin password' };
    try {
      await bootstrap.onApplicationBootstrap();
    } finally {
      config.platformAdmin = original;
    }
    const rows = (await t
      .get(DataSource)
      .query('SELECT count(*)::int AS n FROM account WHERE lower(login) = $1', [
        admin.login,
      ])) as Array<{ n: number }>;
    expect(rows[0].n).toBe(1);
    await t.request().post('/login').send(admin).expect(401);
    await login(t, admin.login, 'a rotated admin password');
  });

  it('is not granted to ordinary accounts', async () => {
    const me = await t.request().get('/accounts/me').set(bearer(customer.jwt)).expect(200);
    expect(me.body.data.platform_admin).toBe(false);
  });
});
