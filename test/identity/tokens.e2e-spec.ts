import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { Authenticated } from '@platform/identity';
import type { SmtpSink } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import {
  addMember,
  bearer,
  createAccount,
  mintToken,
  type TestAccount,
} from '../support/identity.js';

/** A bucket's id in the probe's paths (ids in paths are UUIDs). */
const BUCKET = '/rgw-probe/0b6f3a52-9c1e-4d7a-8f00-2a1b3c4d5e6f';

/** Stands in for the object-storage routes: one route per rgw permission level. */
@Controller('rgw-probe')
class RgwProbeController {
  @Get()
  @Authenticated({ scope: 'organization', permission: 'rgw:read' })
  list(): string[] {
    return [];
  }

  @Post()
  @Authenticated({ scope: 'organization', permission: 'rgw:create' })
  create(): { created: boolean } {
    return { created: true };
  }

  @Patch(':id')
  @Authenticated({ scope: 'organization', permission: 'rgw:update' })
  update(): { updated: boolean } {
    return { updated: true };
  }

  @Delete(':id')
  @HttpCode(204)
  @Authenticated({ scope: 'organization', permission: 'rgw:delete' })
  remove(): void {}
}

describe('static API tokens', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let ada: TestAccount;
  let grace: TestAccount;

  beforeAll(async () => {
    t = await createMailingApiTestApp({ controllers: [RgwProbeController] });
    sink = t.sink;
    ada = await createAccount(t, sink, 'ada@example.com');
    grace = await createAccount(t, sink, 'grace@example.com');
  });

  afterAll(async () => {
    await t.close();
  });

  it('mints a token once: 201 with the raw value, stored only as a hash with its last 4', async () => {
    const res = await t
      .request()
      .post('/tokens')
      .set(bearer(ada.jwt))
      .send({ token: { name: 'deploys', scopes: ['projects:read', 'dns:write'] } })
      .expect(201);
    expect(res.body.metadata.organization_id).toBe(ada.organizationId);
    const data = res.body.data;
    expect(data.token).toMatch(/^hq_pat_[\w-]{43}$/);
    expect(data).toMatchObject({
      name: 'deploys',
      scopes: ['projects:read', 'dns:write'],
      kind: 'api',
      last4: data.token.slice(-4),
    });
    expect(typeof data.token_id).toBe('string');

    const rows = (await t
      .get(DataSource)
      .query('SELECT * FROM api_token WHERE id = $1', [data.token_id])) as Array<
      Record<string, unknown>
    >;
    expect(JSON.stringify(rows)).not.toContain(data.token);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);

    const list = await t.request().get('/tokens').set(bearer(ada.jwt)).expect(200);
    const listed = (list.body.data as Array<Record<string, unknown>>).find(
      (tk) => tk.token_id === data.token_id,
    );
    expect(listed).toMatchObject({
      name: 'deploys',
      scopes: ['projects:read', 'dns:write'],
      last4: data.last4,
      kind: 'api',
      last_used_at: null,
    });
    expect(listed).toHaveProperty('created_at');
    expect(listed).not.toHaveProperty('token');
    expect(JSON.stringify(list.body)).not.toContain(data.token);
  });

  it.each([
    [{ name: 'x', scopes: [] }, 'at least one scope'],
    [{ name: 'x' }, 'scope'],
    [{ name: 'x', scopes: ['projects:admin'] }, 'scope'],
    [{ name: 'x', scopes: ['nothing:read'] }, 'scope'],
    [{ name: 'x', scopes: ['projects'] }, 'scope'],
    [{ name: '', scopes: ['projects:read'] }, 'name'],
    [{ name: '  ', scopes: ['projects:read'] }, 'name'],
  ])('refuses %j with 422 validation_failed', async (token, mention) => {
    const before = (await t.request().get('/tokens').set(bearer(ada.jwt))).body.data
      .length as number;
    const res = await t.request().post('/tokens').set(bearer(ada.jwt)).send({ token }).expect(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.message).toContain(mention);
    expect((await t.request().get('/tokens').set(bearer(ada.jwt))).body.data).toHaveLength(before);
  });

  it('authenticates with the token, records its use, and refuses it once revoked', async () => {
    const raw = await mintToken(t, ada.jwt, ['projects:read', 'tokens:read']);
    const list = await t.request().get('/tokens').set(bearer(raw)).expect(200);
    const mine = (
      list.body.data as Array<{ token_id: string; last4: string; last_used_at: string | null }>
    ).find((tk) => tk.last4 === raw.slice(-4))!;
    expect(mine.last_used_at).not.toBeNull();

    const revoked = await t
      .request()
      .delete(`/tokens/${mine.token_id}`)
      .set(bearer(ada.jwt))
      .expect(204);
    expect(revoked.text).toBe('');
    const refused = await t.request().get('/tokens').set(bearer(raw)).expect(401);
    expect(refused.body.code).toBe('unauthorized');
    await t.request().delete(`/tokens/${mine.token_id}`).set(bearer(ada.jwt)).expect(404);
  });

  it('accepts the token in X-Access-Token too', async () => {
    const raw = await mintToken(t, ada.jwt, ['projects:read']);
    await t
      .request()
      .get(`/organizations/${ada.organizationId}/projects`)
      .set('X-Access-Token', raw)
      .expect(200);
  });

  it('does not let a read-scoped token write', async () => {
    const raw = await mintToken(t, ada.jwt, ['projects:read']);
    await t
      .request()
      .get(`/organizations/${ada.organizationId}/projects`)
      .set(bearer(raw))
      .expect(200);
    const res = await t
      .request()
      .post(`/organizations/${ada.organizationId}/projects`)
      .set(bearer(raw))
      .send({ name: 'nope' })
      .expect(403);
    expect(res.body.code).toBe('insufficient_scope');
    const other = await t.request().get('/memberships').set(bearer(raw)).expect(403);
    expect(other.body.code).toBe('insufficient_scope');
  });

  it('does not let an rgw:read token write, and maps write and manage onto the levels', async () => {
    const read = await mintToken(t, ada.jwt, ['rgw:read']);
    await t.request().get('/rgw-probe').set(bearer(read)).expect(200);
    for (const res of [
      await t.request().post('/rgw-probe').set(bearer(read)).send({}),
      await t.request().patch(BUCKET).set(bearer(read)).send({}),
      await t.request().delete(BUCKET).set(bearer(read)),
    ]) {
      expect({ status: res.status, code: res.body.code }).toEqual({
        status: 403,
        code: 'insufficient_scope',
      });
    }

    const write = await mintToken(t, ada.jwt, ['rgw:write']);
    await t.request().get('/rgw-probe').set(bearer(write)).expect(200);
    await t.request().post('/rgw-probe').set(bearer(write)).send({}).expect(201);
    await t.request().patch(BUCKET).set(bearer(write)).send({}).expect(200);
    const refused = await t.request().delete(BUCKET).set(bearer(write)).expect(403);
    expect(refused.body.code).toBe('insufficient_scope');

    for (const scope of ['rgw:manage', 'rgw:*']) {
      const raw = await mintToken(t, ada.jwt, [scope]);
      await t.request().post('/rgw-probe').set(bearer(raw)).send({}).expect(201);
      await t.request().delete(BUCKET).set(bearer(raw)).expect(204);
    }

    // Another resource's scope covers nothing here.
    const dns = await mintToken(t, ada.jwt, ['dns:*']);
    const other = await t.request().get('/rgw-probe').set(bearer(dns)).expect(403);
    expect(other.body.code).toBe('insufficient_scope');
  });

  it('mints with a cookie session and its CSRF header', async () => {
    const loggedIn = await t
      .request()
      .post('/login')
      .send({ login: ada.login, password: ada.password })
      .expect(200);
    const cookies = (loggedIn.headers['set-cookie'] as unknown as string[]).map(
      (c) => c.split(';')[0],
    );
    const csrf = cookies.find((c) => c.startsWith('_hq_csrf='))!.slice('_hq_csrf='.length);
    const body = { token: { name: 'from the dashboard', scopes: ['projects:read'] } };

    const refused = await t
      .request()
      .post('/tokens')
      .set('Cookie', cookies.join('; '))
      .send(body)
      .expect(403);
    expect(refused.body.code).toBe('invalid_csrf_token');

    const res = await t
      .request()
      .post('/tokens')
      .set('Cookie', cookies.join('; '))
      .set('X-CSRF-Token', csrf)
      .send(body)
      .expect(201);
    expect(res.body.data).toMatchObject({ name: 'from the dashboard', kind: 'api' });
    expect(res.body.data.token).toMatch(/^hq_pat_/);
  });

  it('lets write scopes create and manage scopes delete', async () => {
    const write = await mintToken(t, ada.jwt, ['projects:write', 'tokens:write']);
    await t
      .request()
      .post(`/organizations/${ada.organizationId}/projects`)
      .set(bearer(write))
      .send({ name: 'by token' })
      .expect(201);
    const operator = await addMember(t, sink, ada, 'operator@example.com', 'operator');
    const victim = await mintToken(t, operator.jwt, ['dns:read']);
    const list = await t.request().get('/tokens').set(bearer(ada.jwt)).expect(200);
    const victimId = (list.body.data as Array<{ token_id: string; last4: string }>).find(
      (tk) => tk.last4 === victim.slice(-4),
    )!.token_id;
    // tokens:write covers the caller's own tokens only; another's needs tokens:manage.
    await t.request().delete(`/tokens/${victimId}`).set(bearer(write)).expect(404);
    const manage = await mintToken(t, ada.jwt, ['tokens:manage']);
    await t.request().delete(`/tokens/${victimId}`).set(bearer(manage)).expect(204);
  });

  it("never lets a member's token exceed the member", async () => {
    const viewer = await addMember(t, sink, ada, 'viewer@example.com', 'viewer');
    const raw = await mintToken(t, viewer.jwt, ['projects:*', 'members:*']);
    await t
      .request()
      .get(`/organizations/${ada.organizationId}/projects`)
      .set(bearer(raw))
      .expect(200);
    const res = await t
      .request()
      .post(`/organizations/${ada.organizationId}/projects`)
      .set(bearer(raw))
      .send({ name: 'viewer project' })
      .expect(403);
    expect(res.body.code).toBe('forbidden');
    await t
      .request()
      .post('/invitations')
      .set(bearer(raw))
      .send({ email: 'x@example.com', role: 'admin' })
      .expect(403);
    const rgw = await mintToken(t, viewer.jwt, ['rgw:*']);
    await t.request().get('/rgw-probe').set(bearer(rgw)).expect(200);
    const write = await t.request().post('/rgw-probe').set(bearer(rgw)).send({}).expect(403);
    expect(write.body.code).toBe('forbidden');
  });

  it('stops working when its owner leaves the organization', async () => {
    const dev = await addMember(t, sink, ada, 'dev@example.com', 'developer');
    const raw = await mintToken(t, dev.jwt, ['projects:read']);
    await t
      .request()
      .get(`/organizations/${ada.organizationId}/projects`)
      .set(bearer(raw))
      .expect(200);
    const members = await t.request().get('/memberships').set(bearer(ada.jwt)).expect(200);
    const membership = (members.body.data as Array<{ id: string; account_id: string }>).find(
      (m) => m.account_id === dev.accountId,
    )!;
    await t.request().delete(`/memberships/${membership.id}`).set(bearer(ada.jwt)).expect(204);
    await t
      .request()
      .get(`/organizations/${ada.organizationId}/projects`)
      .set(bearer(raw))
      .expect(401);
  });

  it('cannot mint tokens itself: minting needs a login session', async () => {
    const raw = await mintToken(t, ada.jwt, ['tokens:*']);
    const res = await t
      .request()
      .post('/tokens')
      .set(bearer(raw))
      .send({ token: { name: 'child', scopes: ['tokens:read'] } })
      .expect(403);
    expect(res.body.code).toBe('interactive_session_required');
  });

  it('is scoped to its organization', async () => {
    const raw = await mintToken(t, ada.jwt, ['projects:read', 'tokens:read']);
    await t
      .request()
      .get(`/organizations/${grace.organizationId}/projects`)
      .set(bearer(raw))
      .expect(404);
    await t
      .request()
      .get(`/tokens?organization_id=${grace.organizationId}`)
      .set(bearer(raw))
      .expect(404);
    const graces = await mintToken(t, grace.jwt, ['tokens:read']);
    const list = await t.request().get('/tokens').set(bearer(grace.jwt)).expect(200);
    const graceTokenId = (list.body.data as Array<{ token_id: string; last4: string }>).find(
      (tk) => tk.last4 === graces.slice(-4),
    )!.token_id;
    const res = await t
      .request()
      .delete(`/tokens/${graceTokenId}`)
      .set(bearer(ada.jwt))
      .expect(404);
    expect(res.body.code).toBe('not_found');
    await t.request().get('/tokens').set(bearer(graces)).expect(200);
  });

  it('mints for a named organization with POST /organizations/{org_id}/api_tokens', async () => {
    const res = await t
      .request()
      .post(`/organizations/${ada.organizationId}/api_tokens`)
      .set(bearer(ada.jwt))
      .send({ token: { name: 'named', scopes: ['projects:read'] } })
      .expect(201);
    expect(res.body.data.token).toMatch(/^hq_pat_/);
    await t
      .request()
      .get(`/organizations/${ada.organizationId}/projects`)
      .set(bearer(res.body.data.token as string))
      .expect(200);
    await t
      .request()
      .post(`/organizations/${grace.organizationId}/api_tokens`)
      .set(bearer(ada.jwt))
      .send({ token: { name: 'foreign', scopes: ['projects:read'] } })
      .expect(404);
  });

  it('never expires', async () => {
    const raw = await mintToken(t, ada.jwt, ['projects:read']);
    const start = t.clock.now();
    t.clock.advance({ days: 3650 });
    try {
      await t
        .request()
        .get(`/organizations/${ada.organizationId}/projects`)
        .set(bearer(raw))
        .expect(200);
    } finally {
      t.clock.set(start);
    }
  });
});
