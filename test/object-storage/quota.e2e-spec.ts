import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, mintToken } from '../support/identity.js';
import {
  createStorageWorld,
  DEFAULT_QUOTA,
  type RgwUserData,
  type StorageWorld,
} from './support.js';

/** PATCH /rgw/users/{id}: quota and lock, platform admins only. */
describe('object-storage quota and lock', () => {
  let w: StorageWorld;
  let user: RgwUserData;
  const patch = (body: object, jwt = w.platformJwt, id = user.id) =>
    w.t.request().patch(`/rgw/users/${id}?project_id=${w.projectId}`).set(bearer(jwt)).send(body);
  const stored = () => w.fake.store.users.get(user.uid)!;
  const adminCalls = () => w.fake.requests('admin').length;

  beforeAll(async () => {
    w = await createStorageWorld();
    user = await w.createUser('quota-user');
  });
  afterAll(async () => {
    await w?.close();
  });

  it('a platform admin sets the quota: PUT /admin/user?quota with max-size-kb and enabled', async () => {
    const before = w.fake.received.length;
    const res = await patch({ quota: { max_size_kb: 1048576, enabled: true } }).expect(200);
    expect(res.body.data).toMatchObject({
      id: user.id,
      quota: { max_size_kb: 1048576, enabled: true },
      locked: false,
    });
    expect(stored().quota).toMatchObject({ enabled: true, max_size: 1048576n * 1024n });
    expect(w.fake.received[before]).toMatchObject({
      method: 'PUT',
      path: '/admin/user',
      query: {
        quota: '',
        uid: user.uid,
        'quota-type': 'user',
        'max-size-kb': '1048576',
        enabled: 'true',
      },
    });
  });

  it('-1 removes the limit (RGW keeps a negative size and shows a meaningless max_size_kb)', async () => {
    const res = await patch({ quota: { max_size_kb: -1 } }).expect(200);
    expect(res.body.data.quota).toEqual({ max_size_kb: -1, enabled: true });
    expect(stored().quota.max_size).toBe(-1024n);
    // What RGW answers for it: the view does not take max_size_kb from there.
    const dump = w.fake.store.adminOp(
      'GET',
      'user',
      new Map([
        ['quota', ''],
        ['uid', user.uid],
        ['quota-type', 'user'],
      ]),
    ).body as { max_size_kb: bigint };
    expect(dump.max_size_kb).toBe(18014398509481983n);
    const shown = await w.t
      .request()
      .get(`/rgw/users/${user.id}?project_id=${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .expect(200);
    expect(shown.body.data.quota).toEqual({ max_size_kb: -1, enabled: true });
  });

  it('enabled false stores the quota without enforcing it, keeping the size; the largest exact size is kept', async () => {
    await patch({ quota: { max_size_kb: 2048 } }).expect(200);
    const res = await patch({ quota: { enabled: false } }).expect(200);
    expect(res.body.data.quota).toEqual({ max_size_kb: 2048, enabled: false });
    expect(w.fake.received.at(-3)!.query).not.toHaveProperty('max-size-kb');
    expect(stored().quota).toMatchObject({ enabled: false, max_size: 2048n * 1024n });
    const largest = await patch({ quota: { max_size_kb: Number.MAX_SAFE_INTEGER } }).expect(200);
    expect(largest.body.data.quota.max_size_kb).toBe(Number.MAX_SAFE_INTEGER);
    await patch({ quota: DEFAULT_QUOTA }).expect(200);
  });

  it.each([
    [{ quota: { max_size_kb: -2 } }, 'quota.max_size_kb'],
    [{ quota: { max_size_kb: 2 ** 53 } }, 'quota.max_size_kb'],
    [{ quota: { max_size_kb: 1.5 } }, 'quota.max_size_kb'],
    [{ quota: { max_size_kb: '100' } }, 'quota.max_size_kb'],
    [{ quota: { enabled: 'yes' } }, 'quota.enabled'],
    [{ quota: {} }, 'quota'],
    [{ quota: { max_objects: 10 } }, 'quota'],
    [{ locked: 'true' }, 'locked'],
  ])('refuses %j with 422 naming %s, before any RGW call', async (body, field) => {
    const before = w.fake.received.length;
    const res = await patch(body).expect(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect(w.fake.received.length).toBe(before);
  });

  it('refuses quota and lock changes from everyone else with 403: the org admin, member tokens', async () => {
    const before = adminCalls();
    const orgAdmin = await patch({ quota: { max_size_kb: -1 } }, w.owner.jwt).expect(403);
    expect(orgAdmin.body.code).toBe('forbidden');
    await patch({ locked: true }, w.owner.jwt).expect(403);
    const developerToken = await mintToken(w.t, w.developer.jwt, ['rgw:*']);
    const byToken = await patch({ quota: { max_size_kb: -1 } }, developerToken).expect(403);
    expect(byToken.body.code).toBe('forbidden');
    const ownerToken = await mintToken(w.t, w.owner.jwt, ['rgw:*']);
    await patch({ quota: { max_size_kb: -1 } }, ownerToken).expect(403);
    await patch({ locked: false }, ownerToken).expect(403);
    expect(adminCalls()).toBe(before);
    expect(stored().quota.max_size).toBe(524288000n * 1024n);
  });

  it('locks (POST /admin/user?suspended=1): RGW refuses its key and bucket creates answer 409; unlocks', async () => {
    const before = w.fake.received.length;
    const locked = await patch({ locked: true }).expect(200);
    expect(locked.body.data.locked).toBe(true);
    expect(w.fake.received[before]).toMatchObject({
      method: 'POST',
      path: '/admin/user',
      query: { uid: user.uid, suspended: '1' },
    });
    expect(stored().suspended).toBe(true);
    const refused = await w.t
      .request()
      .post(`/rgw/users/${user.id}/buckets?project_id=${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .send({ name: 'while-locked' })
      .expect(409);
    expect(refused.body.code).toBe('conflict');
    expect(w.fake.requests('s3')).toHaveLength(0);
    const unlocked = await patch({ locked: false }).expect(200);
    expect(unlocked.body.data.locked).toBe(false);
    expect(w.fake.received.at(-3)!.query).toMatchObject({ suspended: '0' });
  });

  it('changes both at once, and audits the change as rgw_users.update', async () => {
    const other = await w.createUser('both-at-once');
    const res = await patch(
      { quota: { max_size_kb: 4096, enabled: true }, locked: true },
      w.platformJwt,
      other.id,
    ).expect(200);
    expect(res.body.data).toMatchObject({
      quota: { max_size_kb: 4096, enabled: true },
      locked: true,
    });
    const rows = await w.t
      .get(DataSource)
      .query(
        `SELECT action, actor_account_id, details FROM audit_log WHERE target_id = $1 AND action = 'rgw_users.update'`,
        [other.id],
      );
    expect(rows).toEqual([
      {
        action: 'rgw_users.update',
        actor_account_id: expect.any(String),
        details: { quota: { max_size_kb: 4096, enabled: true }, locked: true },
      },
    ]);
    expect(rows[0].actor_account_id).not.toBe(w.owner.accountId);
  });

  it('an empty change answers the user as it stands, changes nothing and audits nothing', async () => {
    const before = w.fake.requests('admin').filter((r) => r.method !== 'GET').length;
    const res = await patch({}).expect(200);
    expect(res.body.data.id).toBe(user.id);
    expect(w.fake.requests('admin').filter((r) => r.method !== 'GET').length).toBe(before);
  });

  it('answers 404 for a user of another project', async () => {
    const elsewhere = await w.createUser('elsewhere', { projectId: w.otherProjectId });
    await patch({ locked: true }, w.platformJwt, elsewhere.id).expect(404);
  });
});
