import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount } from '../support/factories.js';
import { bearer, type TestAccount } from '../support/identity.js';

/*
 * Idempotency-Key on creates: a retried create with the same key and body gets the first
 * answer and creates nothing more; another body with the key is 422; keys are the caller's own.
 */
describe('Idempotency-Key', () => {
  let t: TestApp;
  let admin: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    t = await createApiTestApp();
    admin = await seedAccount(t, 'admin@idem.example.com', 'Idem Org');
    other = await seedAccount(t, 'other@idem.example.com', 'Other Org');
  });

  afterAll(async () => {
    await t.close();
  });

  const createProject = (account: TestAccount, key: string | undefined, name: string) => {
    const request = t
      .request()
      .post(`/organizations/${account.organizationId}/projects`)
      .set(bearer(account.jwt));
    if (key !== undefined) request.set('Idempotency-Key', key);
    return request.send({ name });
  };
  const projectsNamed = async (name: string) =>
    (
      await t
        .get(DataSource)
        .query('SELECT count(*)::int AS n FROM project WHERE name = $1', [name])
    )[0].n as number;

  it('answers a retried create with the first answer, creating one project', async () => {
    const first = await createProject(admin, 'key-1', 'alpha').expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await createProject(admin, 'key-1', 'alpha').expect(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.data).toEqual(first.body.data);
    expect(await projectsNamed('alpha')).toBe(1);
  });

  it('refuses the same key with another body, creating nothing', async () => {
    await createProject(admin, 'key-2', 'beta').expect(201);
    const res = await createProject(admin, 'key-2', 'gamma').expect(422);
    expect(res.body.code).toBe('idempotency_key_reused');
    expect(await projectsNamed('gamma')).toBe(0);
  });

  it("keeps keys per caller: another caller's same key is a new request", async () => {
    await createProject(admin, 'shared-key', 'delta').expect(201);
    const res = await createProject(other, 'shared-key', 'delta').expect(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.body.data.organization_id).toBe(other.organizationId);
    expect(await projectsNamed('delta')).toBe(2);
  });

  it('keeps nothing of a failed request, so its key may be retried', async () => {
    const failed = await createProject(admin, 'key-3', '   ').expect(422);
    expect(failed.body.code).toBe('validation_failed');
    await createProject(admin, 'key-3', 'epsilon').expect(201);
    expect(await projectsNamed('epsilon')).toBe(1);
  });

  it('refuses a malformed key, naming the header', async () => {
    for (const key of ['', 'x'.repeat(256), 'with space']) {
      const res = await createProject(admin, key, 'zeta').expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.fields).toEqual([
        { field: 'Idempotency-Key', messages: ['must be 1 to 255 visible ASCII characters'] },
      ]);
    }
    expect(await projectsNamed('zeta')).toBe(0);
  });

  it('leaves requests without the header alone', async () => {
    await createProject(admin, undefined, 'eta').expect(201);
    await createProject(admin, undefined, 'eta').expect(422);
  });
});
