import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer } from '../support/identity.js';
import { createStorageWorld, type RgwUserData, type StorageWorld } from './support.js';

describe('object-storage buckets', () => {
  let w: StorageWorld;
  let user: RgwUserData;
  const path = (id = user.id, projectId = w.projectId) =>
    `/rgw/users/${id}/buckets?project_id=${projectId}`;
  const create = (name: string, jwt = w.owner.jwt, id = user.id, projectId = w.projectId) =>
    w.t.request().post(path(id, projectId)).set(bearer(jwt)).send({ name });
  const remove = (name: string, jwt = w.owner.jwt, id = user.id) =>
    w.t
      .request()
      .delete(`/rgw/users/${id}/buckets/${name}?project_id=${w.projectId}`)
      .set(bearer(jwt));

  beforeAll(async () => {
    w = await createStorageWorld();
    user = await w.createUser('bucket-owner');
  });
  afterAll(async () => {
    await w?.close();
  });

  it("creates a bucket with S3 PUT /<bucket> at RGW_S3_URL, signed with the user's own key", async () => {
    const before = w.fake.received.length;
    const res = await create('photos').expect(201);
    expect(res.body.data).toEqual({
      name: 'photos',
      size_kb: 0,
      num_objects: 0,
      created_at: expect.any(String),
    });
    const put = w.fake.requests('s3', 'PUT').at(-1)!;
    expect(put).toMatchObject({
      endpoint: 's3',
      path: '/photos',
      query: {},
      accessKey: user.access_key,
      region: 'us-east-1',
      service: 's3',
      status: 200,
    });
    // The user owns it, in its organization's tenant; the key was read from Admin Ops, not kept.
    expect(w.fake.store.buckets.get(`${w.tenant}/photos`)).toMatchObject({ owner: user.uid });
    expect(
      w.fake.received.slice(before).map((c) => [c.endpoint, c.method, c.path, c.query]),
    ).toEqual([
      ['admin', 'GET', '/admin/user', { uid: user.uid, format: 'json' }],
      ['s3', 'PUT', '/photos', {}],
    ]);
  });

  it('lists the buckets with their usage (GET /admin/bucket?uid=&stats=true)', async () => {
    await create('videos').expect(201);
    w.fake.store.putObject(w.tenant, 'videos', 5 * 1024);
    w.fake.store.putObject(w.tenant, 'videos', 1024);
    const res = await w.t.request().get(path()).set(bearer(w.viewer.jwt)).expect(200);
    expect(res.body.metadata.count).toBe(res.body.data.length);
    expect(res.body.data).toContainEqual({
      name: 'videos',
      size_kb: 6,
      num_objects: 2,
      created_at: expect.any(String),
    });
    expect(res.body.data.map((b: { name: string }) => b.name).sort()).toEqual(['photos', 'videos']);
    expect(w.fake.requests('admin', 'GET').at(-1)).toMatchObject({
      path: '/admin/bucket',
      query: { uid: user.uid, stats: 'true', format: 'json' },
    });
  });

  it.each([
    ['ab', 'too short'],
    ['a'.repeat(64), 'too long'],
    ['Photos', 'uppercase'],
    ['-photos', 'a leading hyphen'],
    ['photos.', 'a trailing dot'],
    ['my..photos', 'adjacent dots'],
    ['my_photos', 'an underscore'],
    ['192.168.10.1', 'an IP address'],
  ])('refuses the bucket name %j (%s) with 422 naming it, before any call', async (name) => {
    const before = w.fake.received.length;
    const res = await create(name).expect(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.fields.map((f: { field: string }) => f.field)).toEqual(['name']);
    expect(w.fake.received.length).toBe(before);
  });

  it('accepts 3 and 63 characters with dots and hyphens', async () => {
    await create('a.b').expect(201);
    await create(`x-${'y'.repeat(59)}.z`).expect(201);
  });

  it("answers 409 for a name taken in the organization's tenant, even by another user", async () => {
    const other = await w.createUser('other-owner');
    const res = await create('photos', w.owner.jwt, other.id).expect(409);
    expect(res.body).toMatchObject({ code: 'conflict', details: { upstream_status: 409 } });
    // Another organization's tenant has its own names.
    const theirs = await w.createUser('theirs', {
      jwt: w.stranger.jwt,
      projectId: w.strangerProjectId,
    });
    await create('photos', w.stranger.jwt, theirs.id, w.strangerProjectId).expect(201);
  });

  it('Axis A: a viewer cannot create or delete; Axis B: creating needs the kind `bucket`', async () => {
    const refused = await create('by-viewer', w.viewer.jwt).expect(403);
    expect(refused.body.code).toBe('forbidden');
    await remove('photos', w.viewer.jwt).expect(403);
    await remove('photos', w.operator.jwt).expect(403);
    // A project where only users may be created.
    await w.grant(w.otherProjectId, ['user']);
    const staging = await w.createUser('staging-user', { projectId: w.otherProjectId });
    const capability = await create('no-kind', w.owner.jwt, staging.id, w.otherProjectId).expect(
      403,
    );
    expect(capability.body.code).toBe('object_storage_capability_not_enabled');
    await w.t
      .request()
      .get(path(staging.id, w.otherProjectId))
      .set(bearer(w.owner.jwt))
      .expect(200);
  });

  it('deletes a bucket with its objects (DELETE /admin/bucket?bucket=<tenant>/<name>&purge-objects=true)', async () => {
    await create('to-delete').expect(201);
    w.fake.store.putObject(w.tenant, 'to-delete', 4096);
    await remove('to-delete', w.developer.jwt).expect(204);
    expect(w.fake.store.buckets.has(`${w.tenant}/to-delete`)).toBe(false);
    const calls = w.fake.requests('admin').slice(-2);
    expect(calls.map((c) => [c.method, c.path, c.query])).toEqual([
      [
        'GET',
        '/admin/bucket',
        { uid: user.uid, bucket: 'to-delete', stats: 'true', format: 'json' },
      ],
      [
        'DELETE',
        '/admin/bucket',
        { bucket: `${w.tenant}/to-delete`, 'purge-objects': 'true', format: 'json' },
      ],
    ]);
    await remove('to-delete').expect(404);
  });

  it("answers 404 for another user's bucket of the same organization, and deletes nothing", async () => {
    const other = await w.createUser('neighbour');
    await create('neighbours-bucket', w.owner.jwt, other.id).expect(201);
    const deletes = w.fake.requests('admin', 'DELETE').length;
    const res = await remove('neighbours-bucket').expect(404);
    expect(res.body.code).toBe('not_found');
    expect(w.fake.store.buckets.has(`${w.tenant}/neighbours-bucket`)).toBe(true);
    expect(w.fake.requests('admin', 'DELETE')).toHaveLength(deletes);
  });

  it('refuses a bad bucket name in the path with 422, and another project with 404', async () => {
    const bad = await remove('Not_A_Bucket').expect(422);
    expect(bad.body.details.fields.map((f: { field: string }) => f.field)).toEqual(['name']);
    await w.t
      .request()
      .delete(`/rgw/users/${user.id}/buckets/photos?project_id=${w.otherProjectId}`)
      .set(bearer(w.owner.jwt))
      .expect(404);
  });

  it('audits creates and deletes as rgw_buckets.create / rgw_buckets.delete', async () => {
    await create('audited').expect(201);
    await remove('audited').expect(204);
    const rows = await w.t
      .get(DataSource)
      .query(
        `SELECT action, target_type, details FROM audit_log WHERE target_id = 'audited' ORDER BY created_at, action`,
      );
    expect(rows).toEqual([
      {
        action: 'rgw_buckets.create',
        target_type: 'rgw_bucket',
        details: { rgw_user_id: user.id, uid: user.uid },
      },
      {
        action: 'rgw_buckets.delete',
        target_type: 'rgw_bucket',
        details: { rgw_user_id: user.id, uid: user.uid },
      },
    ]);
  });
});
