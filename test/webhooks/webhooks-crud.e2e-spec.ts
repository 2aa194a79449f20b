import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { expectError } from '../support/clients/index.js';
import { seedAccount } from '../support/factories.js';
import { bearer, type TestAccount } from '../support/identity.js';
import { auditedActions, webhooksApiApp } from './support.js';

const RECEIVE_SECRET = /^hq_whr_[A-Za-z0-9_-]{43}$/;
const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('organization webhooks: CRUD, validation and secrets', () => {
  let t: TestApp;
  let owner: TestAccount;
  let sequence = 0;
  const url = () => `https://hooks${++sequence}.example.test/platform`;
  const create = (webhook: Record<string, unknown>, jwt = owner.jwt) =>
    t.request().post('/webhooks').set(bearer(jwt)).send({ webhook });
  const made = async (jwt = owner.jwt) =>
    (await create({ name: `hook ${++sequence}`, url: url() }, jwt).expect(201)).body.data as {
      id: string;
      secret: string;
      signing_secret: string;
    };
  const stored = async (id: string) =>
    (
      await t
        .get(DataSource)
        .query<Array<Record<string, unknown>>>('SELECT * FROM organization_webhook WHERE id = $1', [
          id,
        ])
    )[0];
  const audit = (id: string) => auditedActions(t, id);

  beforeAll(async () => {
    t = await webhooksApiApp();
    owner = await seedAccount(t, 'owner@webhooks.example');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('creates a webhook: 201 with id, name, url, times and both secrets, shown this once', async () => {
    const target = url();
    const res = await create({ name: 'Deploys', url: target }).expect(201);
    const created = res.body.data;
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Deploys',
      url: target,
      created_at: expect.stringMatching(ISO),
      updated_at: created.created_at,
      secret: expect.stringMatching(RECEIVE_SECRET),
      signing_secret: expect.stringMatching(SIGNING_SECRET),
    });
    expect(res.body.metadata.organization_id).toBe(owner.organizationId);

    const shown = { id: created.id, name: 'Deploys', url: target, created_at: created.created_at };
    const one = await t.request().get(`/webhooks/${created.id}`).set(bearer(owner.jwt)).expect(200);
    expect(one.body.data).toEqual({ ...shown, updated_at: created.updated_at });
    const list = await t.request().get('/webhooks').set(bearer(owner.jwt)).expect(200);
    expect(list.body.data).toContainEqual({ ...shown, updated_at: created.updated_at });
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
    expect(JSON.stringify(list.body)).not.toContain(created.signing_secret);

    // Only a hash of the receive secret is kept.
    const row = await stored(created.id);
    expect(row.receive_secret_hash).toBe(createHash('sha256').update(created.secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.secret);
    expect(await audit(created.id)).toEqual(['webhooks.create']);
  });

  it('changes name and url with PATCH, keeps the rest, and audits it', async () => {
    const hook = await made();
    const target = url();
    const res = await t
      .request()
      .patch(`/webhooks/${hook.id}`)
      .set(bearer(owner.jwt))
      .send({ webhook: { name: 'Renamed', url: target } })
      .expect(200);
    expect(res.body.data).toMatchObject({ id: hook.id, name: 'Renamed', url: target });
    expect(res.body.data.secret).toBeUndefined();
    const onlyName = await t
      .request()
      .patch(`/webhooks/${hook.id}`)
      .set(bearer(owner.jwt))
      .send({ webhook: { name: 'Again' } })
      .expect(200);
    expect(onlyName.body.data).toMatchObject({ name: 'Again', url: target });
    expect(await audit(hook.id)).toEqual(['webhooks.create', 'webhooks.update', 'webhooks.update']);
  });

  it('deletes a webhook: 204, then 404, audited', async () => {
    const hook = await made();
    await t.request().delete(`/webhooks/${hook.id}`).set(bearer(owner.jwt)).expect(204);
    const gone = await t.request().get(`/webhooks/${hook.id}`).set(bearer(owner.jwt));
    expectError(gone, 404, 'not_found');
    const again = await t.request().delete(`/webhooks/${hook.id}`).set(bearer(owner.jwt));
    expectError(again, 404, 'not_found');
    expect(await audit(hook.id)).toEqual(['webhooks.create', 'webhooks.delete']);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    for (const path of [`/webhooks/${MISSING}`, '/webhooks/not-a-uuid']) {
      expectError(await t.request().get(path).set(bearer(owner.jwt)), 404, 'not_found');
      expectError(
        await t
          .request()
          .patch(path)
          .set(bearer(owner.jwt))
          .send({ webhook: { name: 'x' } }),
        404,
        'not_found',
      );
    }
  });

  it('refuses malformed bodies with 422 naming the field, and writes nothing', async () => {
    const before = (await t.request().get('/webhooks').set(bearer(owner.jwt))).body.data.length;
    const cases: Array<[unknown, string[]]> = [
      [undefined, ['webhook']],
      [{ url: url() }, ['webhook.name']],
      [{ name: '   ', url: url() }, ['webhook.name']],
      [{ name: 'x'.repeat(201), url: url() }, ['webhook.name']],
      [{ name: 'n' }, ['webhook.url']],
      [{ name: 'n', url: 'ftp://files.example.test/x' }, ['webhook.url']],
      [{ name: 'n', url: 'https://user:pw@hooks.example.test/' }, ['webhook.url']],
      [{ name: 'n', url: 'not a url' }, ['webhook.url']],
      [{ name: 42, url: 7 }, ['webhook.name', 'webhook.url']],
    ];
    for (const [webhook, fields] of cases) {
      const res = await t.request().post('/webhooks').set(bearer(owner.jwt)).send({ webhook });
      expectError(res, 422, 'validation_failed', fields);
    }
    const hook = await made();
    const patch = await t
      .request()
      .patch(`/webhooks/${hook.id}`)
      .set(bearer(owner.jwt))
      .send({ webhook: { name: null } });
    expectError(patch, 422, 'validation_failed', ['webhook.name']);
    const after = (await t.request().get('/webhooks').set(bearer(owner.jwt))).body.data.length;
    expect(after).toBe(before + 1);
  });

  it('answers 422 url_not_allowed for private, loopback and metadata targets', async () => {
    const refused = [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://169.254.169.254/latest/meta-data/',
      'https://10.1.2.3/hook',
      'https://internal.test/hook',
    ];
    for (const target of refused) {
      const res = await create({ name: 'attack', url: target });
      const error = expectError(res, 422, 'url_not_allowed');
      expect(error.details).toEqual({
        fields: [{ field: 'webhook.url', messages: [error.message] }],
      });
    }
    const hook = await made();
    const res = await t
      .request()
      .patch(`/webhooks/${hook.id}`)
      .set(bearer(owner.jwt))
      .send({ webhook: { url: 'http://127.0.0.1/x' } });
    expectError(res, 422, 'url_not_allowed');
  });

  it('rotates the receive secret (old one refused at once) and the signing secret', async () => {
    const hook = await made();
    const receive = (secret: string) =>
      t.request().post(`/webhooks/${hook.id}/receive`).set('Authorization', secret).send({
        type: 'PING',
      });
    await receive(hook.secret).expect(202);
    const rotated = await t
      .request()
      .post(`/webhooks/${hook.id}/rotate_secret`)
      .set(bearer(owner.jwt))
      .expect(200);
    expect(rotated.body.data).toMatchObject({
      id: hook.id,
      secret: expect.stringMatching(RECEIVE_SECRET),
    });
    expect(rotated.body.data.secret).not.toBe(hook.secret);
    expect(rotated.body.data.signing_secret).toBeUndefined();
    expectError(await receive(hook.secret), 401, 'unauthorized');
    await receive(rotated.body.data.secret).expect(202);

    const signing = await t
      .request()
      .post(`/webhooks/${hook.id}/rotate_signing_secret`)
      .set(bearer(owner.jwt))
      .expect(200);
    expect(signing.body.data.signing_secret).toMatch(SIGNING_SECRET);
    expect(signing.body.data.signing_secret).not.toBe(hook.signing_secret);
    expect(signing.body.data.secret).toBeUndefined();
    const row = await stored(hook.id);
    expect(row.signing_secret).toBe(signing.body.data.signing_secret);
    expect(row.previous_signing_secret).toBe(hook.signing_secret);
    expect(await audit(hook.id)).toEqual([
      'webhooks.create',
      'webhooks.rotate_secret',
      'webhooks.rotate_signing_secret',
    ]);
  });

  describe('the history lists page with limit 1..200 and offset', () => {
    it.each(['deliveries', 'receipts'])('%s: a valid page answers 200', async (list) => {
      const hook = await made();
      const res = await t
        .request()
        .get(`/webhooks/${hook.id}/${list}?limit=200&offset=0&future_filter=x`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.metadata).toMatchObject({ count: 0, total: 0 });
    });

    it.each([
      ['deliveries', 'limit=0', 'limit', 'limit must be an integer from 1 to 200'],
      ['deliveries', 'limit=201', 'limit', 'limit must be an integer from 1 to 200'],
      ['deliveries', 'offset=-1', 'offset', 'offset must be an integer from 0 to 9007199254740991'],
      ['receipts', 'limit=abc', 'limit', 'limit must be an integer from 1 to 200'],
      ['receipts', 'offset=xyz', 'offset', 'offset must be an integer from 0 to 9007199254740991'],
    ])('%s?%s: 422 naming the parameter', async (list, query, field, message) => {
      const hook = await made();
      const res = await t
        .request()
        .get(`/webhooks/${hook.id}/${list}?${query}`)
        .set(bearer(owner.jwt));
      expectError(res, 422, 'validation_failed', [field]);
      expect(res.body).toMatchObject({
        message: `Validation failed: ${message}`,
        source_operation: `webhooks.${list}`,
        details: { fields: [{ field, messages: [message] }] },
      });
    });
  });
});
