import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeRgw, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount } from '../support/factories.js';
import { bearer } from '../support/identity.js';
import { createStorageApp, createStorageWorld, type StorageWorld } from './support.js';

/** What the platform answers when RGW fails, refuses its credentials, or is not there at all. */
describe('the RGW provider', () => {
  let w: StorageWorld;
  const createUser = (name: string, t: TestApp = w.t) =>
    t
      .request()
      .post(`/rgw/users?project_id=${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .send({ name });
  const rowsNamed = (name: string) =>
    w.t.get(DataSource).query(`SELECT 1 FROM rgw_user WHERE name = $1`, [name]);

  beforeAll(async () => {
    w = await createStorageWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('a 5xx is 502 provider_unavailable (retryable), answered after one call', async () => {
    const user = await w.createUser('flaky');
    const before = w.fake.requests('admin', 'GET').length;
    w.fake.fail({ method: 'GET', path: /^\/admin\/user$/, status: 503, times: 2 });
    const res = await w.t
      .request()
      .get(`/rgw/users/${user.id}?project_id=${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .expect(502);
    expect(res.body).toMatchObject({
      code: 'provider_unavailable',
      retryable: true,
      source_service: 'cloud',
      details: { provider: 'rgw', upstream_status: 503 },
    });
    expect(w.fake.requests('admin', 'GET').length - before).toBe(2); // the item's two reads
  });

  it('a failed create stores nothing; one failing after the user exists removes it from RGW again', async () => {
    w.fake.fail({ method: 'PUT', path: /^\/admin\/user$/, status: 500 });
    await createUser('never').expect(502);
    expect(await rowsNamed('never')).toEqual([]);

    w.fake.fail({ method: 'PUT', has: 'quota', status: 500 });
    const res = await createUser('half-made').expect(502);
    expect(res.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
    expect(w.fake.store.users.has(`${w.tenant}$half-made`)).toBe(false);
    expect(w.fake.requests('admin', 'DELETE').at(-1)!.query).toMatchObject({
      uid: `${w.tenant}$half-made`,
      'purge-data': 'true',
    });
    expect(await rowsNamed('half-made')).toEqual([]);
    await createUser('half-made').expect(201);
  });

  it('a bucket create that S3 fails is 502', async () => {
    const user = await w.createUser('s3-down');
    w.fake.fail({ endpoint: 's3', status: 500 });
    const res = await w.t
      .request()
      .post(`/rgw/users/${user.id}/buckets?project_id=${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .send({ name: 's3-down-bucket' })
      .expect(502);
    expect(res.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
  });

  it('what RGW refuses as invalid is 422 upstream_rejected with its code', async () => {
    w.fake.fail({ method: 'PUT', path: /^\/admin\/user$/, status: 400, code: 'InvalidArgument' });
    const res = await createUser('rejected').expect(422);
    expect(res.body).toMatchObject({
      code: 'upstream_rejected',
      details: { provider: 'rgw', upstream_status: 400, message: 'InvalidArgument' },
    });
  });

  it('a call without an answer times out (1 s here, 10 s in production) into 502', async () => {
    w.fake.fail({ method: 'PUT', path: /^\/admin\/user$/, hang: true });
    const res = await createUser('hanging').expect(502);
    expect(res.body).toMatchObject({
      code: 'provider_unavailable',
      retryable: true,
      details: { timed_out: true },
    });
  });

  it('a wrong admin secret is 502 provider_auth_failed (RGW: 403 SignatureDoesNotMatch)', async () => {
    const replica = await createStorageApp(
      w.fake,
      { rgw: w.fake.config({ secretKey: 'not the secret' }) },
      w.t,
    );
    try {
      const res = await createUser('bad-secret', replica).expect(502);
      expect(res.body).toMatchObject({
        code: 'provider_auth_failed',
        retryable: false,
        details: {
          provider: 'rgw',
          upstream_status: 403,
          message: expect.stringMatching(/^SignatureDoesNotMatch/),
        },
      });
      expect(w.fake.received.at(-1)).toMatchObject({
        accessKey: w.fake.accessKey,
        status: 403,
        code: 'SignatureDoesNotMatch',
      });
      expect(w.fake.store.users.has(`${w.tenant}$bad-secret`)).toBe(false);
    } finally {
      await replica.close();
    }
  });

  it('signs for RGW_REGION and sends bucket creates to RGW_S3_URL, the admin URL unless set', async () => {
    const replica = await createStorageApp(
      w.fake,
      { rgw: { ...w.fake.config({ region: 'eu-central-1' }), s3Url: w.fake.url('admin') } },
      w.t,
    );
    try {
      const before = w.fake.received.length;
      const user = (await createUser('regional', replica).expect(201)).body.data;
      await replica
        .request()
        .post(`/rgw/users/${user.id}/buckets?project_id=${w.projectId}`)
        .set(bearer(w.owner.jwt))
        .send({ name: 'regional-bucket' })
        .expect(201);
      const calls = w.fake.received.slice(before);
      expect(calls.every((c) => c.endpoint === 'admin' && c.region === 'eu-central-1')).toBe(true);
      expect(calls.at(-1)).toMatchObject({ method: 'PUT', path: '/regional-bucket' });
    } finally {
      await replica.close();
    }
  });

  it('counts RGW calls per service (admin, s3) on /metrics', async () => {
    const metrics = await w.t.request().get('/metrics').expect(200);
    expect(metrics.text).toMatch(
      /upstream_requests_total\{provider="rgw",service="admin",outcome="ok"\} \d+/,
    );
    expect(metrics.text).toMatch(
      /upstream_requests_total\{provider="rgw",service="s3",outcome="error"\} \d+/,
    );
    expect(metrics.text).toMatch(
      /upstream_requests_total\{provider="rgw",service="admin",outcome="unavailable"\} \d+/,
    );
  });
});

describe('without RGW configured', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof seedAccount>>;
  let projectId: string;

  beforeAll(async () => {
    t = await createApiTestApp();
    owner = await seedAccount(t, 'owner@nostorage.example', 'No Storage Org');
    projectId = (
      await t
        .request()
        .post(`/organizations/${owner.organizationId}/projects`)
        .set(bearer(owner.jwt))
        .send({ name: 'p' })
        .expect(201)
    ).body.data.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 503 provider_not_configured on every route and stores nothing', async () => {
    const list = await t
      .request()
      .get(`/rgw/users?project_id=${projectId}`)
      .set(bearer(owner.jwt))
      .expect(503);
    expect(list.body).toMatchObject({
      code: 'provider_not_configured',
      retryable: false,
      source_service: 'cloud',
      details: { provider: 'rgw' },
    });
    await t
      .request()
      .get(`/rgw/users/0b9c4a52-0000-4000-8000-000000000001?project_id=${projectId}`)
      .set(bearer(owner.jwt))
      .expect(503);
    expect(await t.get(DataSource).query(`SELECT 1 FROM rgw_user`)).toEqual([]);
  });
});

describe('an RGW that cannot be reached', () => {
  it('answers 502 provider_unavailable (connection refused)', async () => {
    const fake = await FakeRgw.start();
    const config = fake.config();
    await fake.close();
    const t = await createApiTestApp({ config: { rgw: config } });
    try {
      const owner = await seedAccount(t, 'owner@down.example', 'Down Org');
      const projectId = (
        await t
          .request()
          .post(`/organizations/${owner.organizationId}/projects`)
          .set(bearer(owner.jwt))
          .send({ name: 'p' })
          .expect(201)
      ).body.data.id;
      await t
        .request()
        .put(
          `/organizations/${owner.organizationId}/projects/${projectId}/feature-grants/object_storage`,
        )
        .set(bearer(owner.jwt))
        .send({ approved_configuration: { allowed_kinds: ['user'] } })
        .expect(200);
      const res = await t
        .request()
        .post(`/rgw/users?project_id=${projectId}`)
        .set(bearer(owner.jwt))
        .send({ name: 'unreachable' })
        .expect(502);
      expect(res.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
    } finally {
      await t.close();
    }
  });
});
