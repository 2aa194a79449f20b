import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer } from '../support/identity.js';
import { createStorageWorld, DEFAULT_QUOTA, type StorageWorld } from './support.js';

describe('object-storage users over the RGW Admin Ops API', () => {
  let w: StorageWorld;
  const get = (path: string, jwt = w.owner.jwt) => w.t.request().get(path).set(bearer(jwt));
  const post = (path: string, body: object, jwt = w.owner.jwt) =>
    w.t.request().post(path).set(bearer(jwt)).send(body);
  const adminCalls = () => w.fake.requests('admin').length;

  beforeAll(async () => {
    w = await createStorageWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('creates the user in the organization tenant with a key and the default quota, showing the secret once', async () => {
    const before = w.fake.received.length;
    const res = await post(`/rgw/users?project_id=${w.projectId}`, { name: 'alice' }).expect(201);
    const uid = `${w.tenant}$alice`;
    expect(res.body.metadata).toMatchObject({
      organization_id: w.owner.organizationId,
      project_id: w.projectId,
    });
    const user = res.body.data;
    expect(user).toEqual({
      id: expect.any(String),
      name: 'alice',
      uid,
      access_key: expect.stringMatching(/^[A-Z0-9]{20}$/),
      secret_key: expect.any(String),
      organization_id: w.owner.organizationId,
      project_id: w.projectId,
      quota: DEFAULT_QUOTA,
      buckets_total_size_kb: 0,
      locked: false,
      created_at: expect.any(String),
    });
    // RGW has the user with exactly that key and the default quota, enforced.
    const stored = w.fake.store.users.get(uid)!;
    expect([...stored.keys]).toEqual([[user.access_key, user.secret_key]]);
    expect(stored.quota).toMatchObject({ enabled: true, max_size: 524288000n * 1024n });
    // The exact Admin Ops calls, signed with the admin key for us-east-1 (service s3).
    const calls = w.fake.received.slice(before);
    expect(calls.map((c) => [c.endpoint, c.method, c.path, c.query])).toEqual([
      [
        'admin',
        'PUT',
        '/admin/user',
        { uid, 'display-name': 'alice', 'key-type': 's3', 'generate-key': 'true', format: 'json' },
      ],
      [
        'admin',
        'PUT',
        '/admin/user',
        {
          quota: '',
          uid,
          'quota-type': 'user',
          'max-size-kb': '524288000',
          enabled: 'true',
          format: 'json',
        },
      ],
    ]);
    expect(
      calls.every(
        (c) =>
          c.accessKey === w.fake.accessKey &&
          c.region === 'us-east-1' &&
          c.service === 's3' &&
          c.status === 200,
      ),
    ).toBe(true);
  });

  it('lists the project users from its own table, without a call to RGW', async () => {
    await w.createUser('bob');
    const before = w.fake.received.length;
    const listed = await get(`/rgw/users?project_id=${w.projectId}`).expect(200);
    expect(w.fake.received.length).toBe(before);
    expect(listed.body.metadata.count).toBe(listed.body.data.length);
    const bob = listed.body.data.find((u: { name: string }) => u.name === 'bob');
    expect(bob).toEqual({
      id: expect.any(String),
      name: 'bob',
      uid: `${w.tenant}$bob`,
      access_key: expect.any(String),
      organization_id: w.owner.organizationId,
      project_id: w.projectId,
      created_at: expect.any(String),
    });
    expect(await get(`/rgw/users?project_id=${w.otherProjectId}`).expect(200)).toMatchObject({
      body: { data: [] },
    });
  });

  it('shows one user with live usage (stats.size_kb) and quota, from two Admin Ops reads', async () => {
    const user = await w.createUser('carol');
    w.fake.store.createBucket({ accessKey: user.access_key, uid: user.uid }, 'carol-data');
    w.fake.store.putObject(w.tenant, 'carol-data', 3 * 1024 * 1024 + 1);
    const before = w.fake.received.length;
    const shown = await get(`/rgw/users/${user.id}?project_id=${w.projectId}`).expect(200);
    expect(shown.body.data).toEqual({
      id: user.id,
      name: 'carol',
      uid: user.uid,
      access_key: user.access_key,
      organization_id: w.owner.organizationId,
      project_id: w.projectId,
      quota: DEFAULT_QUOTA,
      buckets_total_size_kb: 3 * 1024 + 1,
      locked: false,
      created_at: user.created_at,
    });
    expect(
      w.fake.received
        .slice(before)
        .map((c) => c.query)
        .sort((a, b) => Object.keys(a).length - Object.keys(b).length),
    ).toEqual([
      { uid: user.uid, stats: 'true', format: 'json' },
      { quota: '', uid: user.uid, 'quota-type': 'user', format: 'json' },
    ]);
  });

  it('takes project_id from the body of a create, and answers 422 without one', async () => {
    await post('/rgw/users', { name: 'from-body', project_id: w.projectId }).expect(201);
    const missing = await get('/rgw/users').expect(422);
    expect(missing.body).toMatchObject({
      code: 'validation_failed',
      details: { fields: [{ field: 'project_id' }] },
    });
    await w.t.request().get('/rgw/users').expect(401);
  });

  it.each([
    ['', 'empty'],
    ['Alice', 'uppercase'],
    ['org$alice', 'the tenant separator'],
    ['alice:sub', "RGW's subuser separator"],
    ['-alice', 'a leading hyphen'],
    ['a'.repeat(65), '65 characters'],
  ])('refuses the name %j (%s) with 422 naming it, before any RGW call', async (name) => {
    const before = w.fake.received.length;
    const res = await post(`/rgw/users?project_id=${w.projectId}`, { name }).expect(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.fields.map((f: { field: string }) => f.field)).toEqual(['name']);
    expect(w.fake.received.length).toBe(before);
  });

  it('accepts 64 characters of letters, digits, dots, hyphens and underscores', async () => {
    await post(`/rgw/users?project_id=${w.projectId}`, {
      name: `a0_.-${'z'.repeat(59)}`,
    }).expect(201);
  });

  it('answers 409 for a name the organization already has (in any of its projects), before RGW', async () => {
    await w.createUser('dora');
    const before = adminCalls();
    const again = await post(`/rgw/users?project_id=${w.otherProjectId}`, { name: 'dora' }).expect(
      409,
    );
    expect(again.body.code).toBe('conflict');
    expect(adminCalls()).toBe(before);
    // Another organization has a tenant of its own: the same name is free there.
    await w.createUser('dora', { jwt: w.stranger.jwt, projectId: w.strangerProjectId });
  });

  it('answers 409 when RGW already has the uid, and stores nothing', async () => {
    w.fake.store.adminOp(
      'PUT',
      'user',
      new Map([
        ['uid', `${w.tenant}$legacy`],
        ['display-name', 'made by an operator'],
      ]),
    );
    const res = await post(`/rgw/users?project_id=${w.projectId}`, { name: 'legacy' }).expect(409);
    expect(res.body).toMatchObject({
      code: 'conflict',
      details: { provider: 'rgw', message: 'UserAlreadyExists' },
    });
    const rows = await w.t.get(DataSource).query(`SELECT 1 FROM rgw_user WHERE name = 'legacy'`);
    expect(rows).toEqual([]);
  });

  it('keeps tenants apart: another project or organization answers 404 for the id', async () => {
    const user = await w.createUser('erin');
    const other = await get(`/rgw/users/${user.id}?project_id=${w.otherProjectId}`).expect(404);
    expect(other.body.code).toBe('not_found');
    const theirs = await w.createUser('theirs', {
      jwt: w.stranger.jwt,
      projectId: w.strangerProjectId,
    });
    expect(theirs.uid).toBe(`org${w.stranger.organizationId.replace(/-/g, '')}$theirs`);
    await get(`/rgw/users/${theirs.id}?project_id=${w.projectId}`).expect(404);
    await get(`/rgw/users/${theirs.id}/buckets?project_id=${w.projectId}`).expect(404);
    await w.t
      .request()
      .delete(`/rgw/users/${theirs.id}?project_id=${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .expect(404);
    // Nor does the owner see the stranger's project at all.
    await get(`/rgw/users?project_id=${w.strangerProjectId}`).expect(404);
    await get(`/rgw/users/not-a-uuid?project_id=${w.projectId}`).expect(404);
  });

  it('Axis A: a viewer reads but does not create; a developer and an operator create', async () => {
    await get(`/rgw/users?project_id=${w.projectId}`, w.viewer.jwt).expect(200);
    const refused = await post(
      `/rgw/users?project_id=${w.projectId}`,
      { name: 'by-viewer' },
      w.viewer.jwt,
    ).expect(403);
    expect(refused.body.code).toBe('forbidden');
    await w.createUser('by-dev', { jwt: w.developer.jwt });
    await w.createUser('by-ops', { jwt: w.operator.jwt });
  });

  it('Axis B: creating a user needs the object_storage kind `user` Available; reading does not', async () => {
    const refused = await post(`/rgw/users?project_id=${w.bareProjectId}`, {
      name: 'nope',
    }).expect(403);
    expect(refused.body.code).toBe('object_storage_capability_not_enabled');
    await get(`/rgw/users?project_id=${w.bareProjectId}`).expect(200);
    await w.grant(w.bareProjectId, ['bucket']);
    await post(`/rgw/users?project_id=${w.bareProjectId}`, { name: 'nope' }).expect(403);
    await w.grant(w.bareProjectId, ['user']);
    await post(`/rgw/users?project_id=${w.bareProjectId}`, { name: 'now-yes' }).expect(201);
  });

  it('stores no secret: the table holds the access key only, and no answer but the create shows it', async () => {
    const user = await w.createUser('frank');
    const rows: Array<Record<string, unknown>> = await w.t
      .get(DataSource)
      .query(`SELECT * FROM rgw_user WHERE id = $1`, [user.id]);
    expect(Object.keys(rows[0]).sort()).toEqual(
      ['access_key', 'created_at', 'id', 'name', 'organization_id', 'project_id', 'uid'].sort(),
    );
    expect(rows[0].access_key).toBe(user.access_key);
    const dump = await w.t
      .get(DataSource)
      .query(`SELECT row_to_json(r)::text AS t FROM rgw_user r`);
    expect(JSON.stringify(dump)).not.toContain(user.secret_key);
    const audit = await w.t.get(DataSource).query(`SELECT details::text AS d FROM audit_log`);
    expect(JSON.stringify(audit)).not.toContain(user.secret_key);
    for (const path of [`/rgw/users/${user.id}`, '/rgw/users', `/rgw/users/${user.id}/buckets`]) {
      const res = await get(`${path}?project_id=${w.projectId}`).expect(200);
      expect(JSON.stringify(res.body)).not.toContain(user.secret_key);
      expect(JSON.stringify(res.body)).not.toContain('secret_key');
    }
  });

  it('audits the create as rgw_users.create with the user as target', async () => {
    const user = await w.createUser('grace');
    const rows = await w.t
      .get(DataSource)
      .query(
        `SELECT action, target_type, project_id, actor_account_id, details FROM audit_log WHERE target_id = $1`,
        [user.id],
      );
    expect(rows).toEqual([
      {
        action: 'rgw_users.create',
        target_type: 'rgw_user',
        project_id: w.projectId,
        actor_account_id: w.owner.accountId,
        details: { name: 'grace', uid: user.uid },
      },
    ]);
  });
});
