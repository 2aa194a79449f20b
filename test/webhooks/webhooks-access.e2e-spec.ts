import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { expectError } from '../support/clients/index.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { bearer, mintToken, type TestAccount } from '../support/identity.js';
import { digest, pushEvent, webhooksApiApp } from './support.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('organization webhooks: access per role, tenancy, receive authentication', () => {
  let t: TestApp;
  let owner: TestAccount;
  let developer: TestAccount;
  let operator: TestAccount;
  let viewer: TestAccount;
  let billing: TestAccount;
  let stranger: TestAccount;
  let sequence = 0;

  const url = () => `https://hooks${++sequence}.example.test/platform`;
  const create = (webhook: Record<string, unknown>, jwt = owner.jwt) =>
    t.request().post('/webhooks').set(bearer(jwt)).send({ webhook });
  const made = async (jwt = owner.jwt) =>
    (await create({ name: `hook ${++sequence}`, url: url() }, jwt).expect(201)).body.data as {
      id: string;
      name: string;
      secret: string;
    };

  beforeAll(async () => {
    // APPS_KUBECONFIG is unset here.
    t = await webhooksApiApp();
    owner = await seedAccount(t, 'owner@access.example');
    developer = await seedMember(t, owner, 'dev@access.example', 'developer');
    operator = await seedMember(t, owner, 'ops@access.example', 'operator');
    viewer = await seedMember(t, owner, 'viewer@access.example', 'viewer');
    billing = await seedMember(t, owner, 'billing@access.example', 'billing_manager');
    stranger = await seedAccount(t, 'stranger@elsewhere.example');
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('Axis A: what each role may do', () => {
    const attempts = async (member: TestAccount, hookId: string) => {
      const as = bearer(member.jwt);
      return {
        list: (await t.request().get('/webhooks').set(as)).status,
        show: (await t.request().get(`/webhooks/${hookId}`).set(as)).status,
        deliveries: (await t.request().get(`/webhooks/${hookId}/deliveries`).set(as)).status,
        create: (await create({ name: 'mine', url: url() }, member.jwt)).status,
        update: (
          await t
            .request()
            .patch(`/webhooks/${hookId}`)
            .set(as)
            .send({ webhook: { name: 'r' } })
        ).status,
        rotate: (await t.request().post(`/webhooks/${hookId}/rotate_secret`).set(as)).status,
        remove: (await t.request().delete(`/webhooks/${hookId}`).set(as)).status,
      };
    };

    it('admin and developer do everything; operator all but delete and rotation', async () => {
      expect(await attempts(owner, (await made()).id)).toEqual({
        list: 200,
        show: 200,
        deliveries: 200,
        create: 201,
        update: 200,
        rotate: 200,
        remove: 204,
      });
      expect(await attempts(developer, (await made()).id)).toEqual({
        list: 200,
        show: 200,
        deliveries: 200,
        create: 201,
        update: 200,
        rotate: 200,
        remove: 204,
      });
      expect(await attempts(operator, (await made()).id)).toEqual({
        list: 200,
        show: 200,
        deliveries: 200,
        create: 201,
        update: 200,
        rotate: 403,
        remove: 403,
      });
    });

    it('a viewer reads only; a billing manager sees nothing', async () => {
      const hook = await made();
      expect(await attempts(viewer, hook.id)).toEqual({
        list: 200,
        show: 200,
        deliveries: 200,
        create: 403,
        update: 403,
        rotate: 403,
        remove: 403,
      });
      const refused = await t
        .request()
        .post('/webhooks')
        .set(bearer(viewer.jwt))
        .send({
          webhook: { name: 'no', url: url() },
        });
      expectError(refused, 403, 'forbidden');
      expect(await attempts(billing, hook.id)).toEqual({
        list: 403,
        show: 403,
        deliveries: 403,
        create: 403,
        update: 403,
        rotate: 403,
        remove: 403,
      });
    });

    it('a static token acts within its scopes', async () => {
      const hook = await made();
      const reader = await mintToken(t, owner.jwt, ['webhooks:read']);
      await t.request().get(`/webhooks/${hook.id}`).set(bearer(reader)).expect(200);
      expectError(
        await t
          .request()
          .post('/webhooks')
          .set(bearer(reader))
          .send({ webhook: { name: 'n', url: url() } }),
        403,
        'insufficient_scope',
      );
      const writer = await mintToken(t, owner.jwt, ['webhooks:write']);
      await t
        .request()
        .post('/webhooks')
        .set(bearer(writer))
        .send({ webhook: { name: 'n', url: url() } })
        .expect(201);
      expectError(
        await t.request().delete(`/webhooks/${hook.id}`).set(bearer(writer)),
        403,
        'insufficient_scope',
      );
    });

    it('answers 401 without credentials', async () => {
      expectError(await t.request().get('/webhooks'), 401, 'unauthorized');
      expectError(
        await t
          .request()
          .post('/webhooks')
          .send({ webhook: { name: 'n', url: url() } }),
        401,
        'unauthorized',
      );
    });
  });

  it("keeps organizations apart: another organization's webhook is 404 and never listed", async () => {
    const hook = await made();
    const as = bearer(stranger.jwt);
    expectError(await t.request().get(`/webhooks/${hook.id}`).set(as), 404, 'not_found');
    expectError(
      await t
        .request()
        .patch(`/webhooks/${hook.id}`)
        .set(as)
        .send({ webhook: { name: 'mine' } }),
      404,
      'not_found',
    );
    expectError(await t.request().delete(`/webhooks/${hook.id}`).set(as), 404, 'not_found');
    expectError(
      await t.request().post(`/webhooks/${hook.id}/rotate_secret`).set(as),
      404,
      'not_found',
    );
    expectError(await t.request().get(`/webhooks/${hook.id}/deliveries`).set(as), 404, 'not_found');
    expectError(await t.request().get(`/webhooks/${hook.id}/receipts`).set(as), 404, 'not_found');
    const theirs = await t.request().get('/webhooks').set(as).expect(200);
    expect(theirs.body.data).toEqual([]);
    const [row] = await t
      .get(DataSource)
      .query<Array<{ name: string }>>('SELECT name FROM organization_webhook WHERE id = $1', [
        hook.id,
      ]);
    expect(row.name).toBe(hook.name);
  });

  describe('receive without an apps cluster', () => {
    it('authenticates before anything: unknown, malformed ids and wrong or missing secrets are the same 401', async () => {
      const hook = await made();
      const other = await made();
      const post = (id: string, authorization?: string) => {
        const req = t.request().post(`/webhooks/${id}/receive`);
        return (authorization ? req.set('Authorization', authorization) : req).send({
          type: 'PING',
        });
      };
      const refusals = [
        post(hook.id),
        post(hook.id, ''),
        post(hook.id, 'wrong'),
        post(hook.id, other.secret),
        post(hook.id, `Basic ${hook.secret}`),
        post(MISSING, hook.secret),
        post('not-a-uuid', hook.secret),
      ];
      const messages = new Set<string>();
      for (const res of await Promise.all(refusals))
        messages.add(expectError(res, 401, 'unauthorized').message);
      expect(messages.size).toBe(1);
      await post(hook.id, hook.secret).expect(202);
      await post(hook.id, `Bearer ${hook.secret}`).expect(202);
    });

    it('answers 503 provider_not_configured to a push while APPS_KUBECONFIG is unset, and records it', async () => {
      const hook = await made();
      const res = await t
        .request()
        .post(`/webhooks/${hook.id}/receive`)
        .set('Authorization', hook.secret)
        .send(pushEvent('reg.example.test/acme/shop:v1', digest('a')));
      const error = expectError(res, 503, 'provider_not_configured');
      expect(error.retryable).toBe(false);
      const receipts = await t
        .request()
        .get(`/webhooks/${hook.id}/receipts`)
        .set(bearer(viewer.jwt))
        .expect(200);
      expect(receipts.body.data).toEqual([
        expect.objectContaining({
          outcome: 'failed',
          resource_url: 'reg.example.test/acme/shop:v1',
          error: expect.stringMatching(/^provider_not_configured: .*APPS_KUBECONFIG/),
          apps: [],
        }),
      ]);
    });
  });
});
