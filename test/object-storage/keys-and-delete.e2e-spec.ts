import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, mintToken } from '../support/identity.js';
import { createStorageWorld, type StorageWorld } from './support.js';

describe('object-storage key renewal and user deletion', () => {
  let w: StorageWorld;
  const renew = (id: string, jwt = w.owner.jwt) =>
    w.t.request().post(`/rgw/users/${id}/renew_key?project_id=${w.projectId}`).set(bearer(jwt));
  const remove = (id: string, jwt = w.owner.jwt, query = '') =>
    w.t.request().delete(`/rgw/users/${id}?project_id=${w.projectId}${query}`).set(bearer(jwt));
  const auditOf = async (id: string) =>
    (await w.t
      .get(DataSource)
      .query(
        `SELECT action, actor_account_id, details FROM audit_log WHERE target_id = $1 ORDER BY created_at`,
        [id],
      )) as Array<{ action: string; actor_account_id: string; details: Record<string, unknown> }>;

  beforeAll(async () => {
    w = await createStorageWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  describe('renew_key', () => {
    it('creates a new S3 key, answers its secret once, and removes the old key', async () => {
      const user = await w.createUser('rotating');
      const before = w.fake.received.length;
      const res = await renew(user.id).expect(200);
      const renewed = res.body.data;
      expect(renewed).toMatchObject({
        id: user.id,
        uid: user.uid,
        access_key: expect.stringMatching(/^[A-Z0-9]{20}$/),
        secret_key: expect.any(String),
        quota: { max_size_kb: 524288000, enabled: true },
        locked: false,
      });
      expect(renewed.access_key).not.toBe(user.access_key);
      expect(renewed.secret_key).not.toBe(user.secret_key);
      // RGW holds exactly the new key now.
      expect([...w.fake.store.users.get(user.uid)!.keys]).toEqual([
        [renewed.access_key, renewed.secret_key],
      ]);
      const writes = w.fake.received.slice(before).filter((c) => c.method !== 'GET');
      expect(writes.map((c) => [c.method, c.query])).toEqual([
        [
          'PUT',
          {
            key: '',
            uid: user.uid,
            'key-type': 's3',
            'access-key': renewed.access_key,
            'generate-key': 'true',
            format: 'json',
          },
        ],
        [
          'DELETE',
          {
            key: '',
            uid: user.uid,
            'key-type': 's3',
            'access-key': user.access_key,
            format: 'json',
          },
        ],
      ]);
      // Our table follows; nothing shows the secret again.
      const shown = await w.t
        .request()
        .get(`/rgw/users/${user.id}?project_id=${w.projectId}`)
        .set(bearer(w.owner.jwt))
        .expect(200);
      expect(shown.body.data.access_key).toBe(renewed.access_key);
      expect(shown.body.data).not.toHaveProperty('secret_key');
      const rows = await w.t
        .get(DataSource)
        .query(`SELECT row_to_json(r)::text AS t FROM rgw_user r`);
      expect(JSON.stringify(rows)).not.toContain(renewed.secret_key);
      const audit = await auditOf(user.id);
      expect(audit.at(-1)).toEqual({
        action: 'rgw_users.renew_key',
        actor_account_id: w.owner.accountId,
        details: { access_key: renewed.access_key, previous_access_key: user.access_key },
      });
      expect(JSON.stringify(audit)).not.toContain(renewed.secret_key);
    });

    it('needs rgw:update: a viewer gets 403, an operator renews', async () => {
      const user = await w.createUser('needs-update');
      const refused = await renew(user.id, w.viewer.jwt).expect(403);
      expect(refused.body.code).toBe('forbidden');
      await renew(user.id, w.operator.jwt).expect(200);
    });

    it('answers 404 for a user of another project', async () => {
      const elsewhere = await w.createUser('renew-elsewhere', { projectId: w.otherProjectId });
      await renew(elsewhere.id).expect(404);
    });

    it('when the old key cannot be removed, removes the new one again: the user keeps its key', async () => {
      const user = await w.createUser('half-renewed');
      w.fake.fail({ method: 'DELETE', has: 'key', status: 500 });
      const res = await renew(user.id).expect(502);
      expect(res.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
      expect([...w.fake.store.users.get(user.uid)!.keys.keys()]).toEqual([user.access_key]);
      const rows = await w.t
        .get(DataSource)
        .query(`SELECT access_key FROM rgw_user WHERE id = $1`, [user.id]);
      expect(rows).toEqual([{ access_key: user.access_key }]);
      // A retry then succeeds.
      await renew(user.id).expect(200);
    });
  });

  describe('DELETE', () => {
    it('needs rgw:delete: an operator gets 403; a developer removes the user from RGW and the table', async () => {
      const user = await w.createUser('short-lived');
      await remove(user.id, w.operator.jwt).expect(403);
      await remove(user.id, w.developer.jwt).expect(204);
      expect(w.fake.store.users.has(user.uid)).toBe(false);
      expect(w.fake.requests('admin', 'DELETE').at(-1)!.query).toEqual({
        uid: user.uid,
        format: 'json',
      });
      await w.t
        .request()
        .get(`/rgw/users/${user.id}?project_id=${w.projectId}`)
        .set(bearer(w.owner.jwt))
        .expect(404);
      expect(await auditOf(user.id)).toContainEqual({
        action: 'rgw_users.delete',
        actor_account_id: w.developer.accountId,
        details: { name: 'short-lived', uid: user.uid, purge_objects: false },
      });
    });

    it('answers 409 for a user who still owns buckets, unless purging', async () => {
      const user = await w.createUser('has-buckets');
      await w.t
        .request()
        .post(`/rgw/users/${user.id}/buckets?project_id=${w.projectId}`)
        .set(bearer(w.owner.jwt))
        .send({ name: 'has-buckets-data' })
        .expect(201);
      const res = await remove(user.id).expect(409);
      expect(res.body).toMatchObject({
        code: 'conflict',
        message: 'The user still owns buckets: delete them first',
      });
      expect(w.fake.store.users.has(user.uid)).toBe(true);
    });

    it('purge_objects=true is platform-admin only: 403 for the org admin, a developer and a member token, before any RGW call', async () => {
      const user = await w.createUser('to-purge');
      const before = w.fake.received.length;
      const developerToken = await mintToken(w.t, w.developer.jwt, ['rgw:*']);
      for (const jwt of [w.owner.jwt, w.developer.jwt, developerToken]) {
        const refused = await remove(user.id, jwt, '&purge_objects=true').expect(403);
        expect(refused.body.code).toBe('forbidden');
      }
      expect(w.fake.received.length).toBe(before);
      const maybe = await remove(user.id, w.owner.jwt, '&purge_objects=maybe').expect(422);
      expect(maybe.body).toMatchObject({
        code: 'validation_failed',
        details: {
          fields: [
            {
              field: 'purge_objects',
              messages: ['purge_objects must be one of the following values: true, false'],
            },
          ],
        },
      });
    });

    it('a platform admin purges the user with its buckets and objects, irreversibly, audited as rgw_users.purge', async () => {
      const user = await w.createUser('purged');
      await w.t
        .request()
        .post(`/rgw/users/${user.id}/buckets?project_id=${w.projectId}`)
        .set(bearer(w.owner.jwt))
        .send({ name: 'purged-data' })
        .expect(201);
      w.fake.store.putObject(w.tenant, 'purged-data', 1000);
      await remove(user.id, w.platformJwt, '&purge_objects=true').expect(204);
      expect(w.fake.requests('admin', 'DELETE').at(-1)!.query).toEqual({
        uid: user.uid,
        'purge-data': 'true',
        format: 'json',
      });
      expect(w.fake.store.users.has(user.uid)).toBe(false);
      expect(w.fake.store.buckets.has(`${w.tenant}/purged-data`)).toBe(false);
      const purge = (await auditOf(user.id)).find((r) => r.action === 'rgw_users.purge');
      expect(purge).toMatchObject({
        details: { name: 'purged', uid: user.uid, purge_objects: true },
      });
      expect(purge!.actor_account_id).not.toBe(w.owner.accountId);
    });

    it('removes the row of a user RGW no longer has', async () => {
      const user = await w.createUser('gone-upstream');
      w.fake.store.users.delete(user.uid);
      await remove(user.id).expect(204);
      const rows = await w.t
        .get(DataSource)
        .query(`SELECT 1 FROM rgw_user WHERE id = $1`, [user.id]);
      expect(rows).toEqual([]);
    });
  });
});
