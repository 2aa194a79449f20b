import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RGW_CALL_TIMEOUT_MS, UsageCheckProcessor } from '@platform/object-storage';
import { FakeRgw } from '@platform/testing';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { bearer, login, type TestAccount } from '../support/identity.js';
import { PLATFORM } from './support.js';

interface NotificationView {
  category: string;
  event_type: string;
  organization_id: string | null;
  payload: Record<string, unknown>;
}

const KIB = 1024;

describe('object-storage usage notifications (billing)', () => {
  let fake: FakeRgw;
  let t: MailingTestApp;
  let owner: TestAccount;
  let developer: TestAccount;
  let projectId: string;
  let userId: string;
  let tenant: string;

  beforeAll(async () => {
    fake = await FakeRgw.start();
    t = await createMailingApiTestApp({
      config: { platformAdmin: PLATFORM, rgw: fake.config() },
      override: (builder) => builder.overrideProvider(RGW_CALL_TIMEOUT_MS).useValue(1000),
    });
    owner = await seedAccount(t, 'owner@usage.example', 'Usage Org');
    developer = await seedMember(t, owner, 'dev@usage.example', 'developer');
    const platformJwt = await login(t, PLATFORM.login, PLATFORM.password);
    projectId = (
      await t
        .request()
        .post(`/organizations/${owner.organizationId}/projects`)
        .set(bearer(owner.jwt))
        .send({ name: 'media' })
        .expect(201)
    ).body.data.id;
    await t
      .request()
      .put(
        `/organizations/${owner.organizationId}/projects/${projectId}/feature-grants/object_storage`,
      )
      .set(bearer(platformJwt))
      .send({ approved_configuration: { allowed_kinds: ['user', 'bucket'] } })
      .expect(200);
    userId = (
      await t
        .request()
        .post(`/rgw/users?project_id=${projectId}`)
        .set(bearer(owner.jwt))
        .send({ name: 'uploader' })
        .expect(201)
    ).body.data.id;
    await t
      .request()
      .patch(`/rgw/users/${userId}?project_id=${projectId}`)
      .set(bearer(platformJwt))
      .send({ quota: { max_size_kb: 1000, enabled: true } })
      .expect(200);
    await t
      .request()
      .post(`/rgw/users/${userId}/buckets?project_id=${projectId}`)
      .set(bearer(owner.jwt))
      .send({ name: 'uploads' })
      .expect(201);
    tenant = `org${owner.organizationId.replace(/-/g, '')}`;
  });

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const billing = async (who: TestAccount): Promise<NotificationView[]> => {
    const res = await t.request().get('/notifications?limit=100').set(bearer(who.jwt)).expect(200);
    return (res.body.data as NotificationView[]).filter((n) => n.category === 'billing');
  };

  const setUsage = (bytes: number) => {
    fake.store.buckets.get(`${tenant}/uploads`)!.size = bytes;
  };

  const check = async () => {
    t.clock.advance({ minutes: 15 });
    return t.get(UsageCheckProcessor).check();
  };

  it('tells the admins once per crossing of 80 % and 100 %, anew after going below', async () => {
    expect(await check()).toBe(0);
    setUsage(800 * KIB);
    expect(await check()).toBe(1);
    expect(await check()).toBe(0);
    const [first] = await billing(owner);
    expect(first).toMatchObject({
      event_type: 'object_storage_quota_threshold',
      organization_id: owner.organizationId,
    });
    expect(first.payload).toEqual({
      rgw_user_id: userId,
      rgw_user_name: 'uploader',
      project_id: projectId,
      threshold_percent: 80,
      used_kb: 800,
      quota_kb: 1000,
      used_percent: 80,
      link: `${t.config.publicUrl}/rgw/users/${userId}?project_id=${projectId}`,
    });
    // Not an admin: not told.
    expect(await billing(developer)).toEqual([]);

    setUsage(1000 * KIB);
    expect(await check()).toBe(1);
    // Below both thresholds: stored without a word; past 80 % again: a new crossing.
    setUsage(100 * KIB);
    expect(await check()).toBe(0);
    setUsage(850 * KIB);
    expect(await check()).toBe(1);
    expect(await check()).toBe(0);
    const thresholds = (await billing(owner)).map((n) => n.payload.threshold_percent);
    expect(thresholds).toEqual([80, 100, 80]);
    await t.sink.waitFor(
      (m) =>
        m.to.includes(owner.login) &&
        m.subject === 'Object storage user uploader has used its whole quota',
    );
  });

  it('has no thresholds once the quota is disabled', async () => {
    fake.store.users.get(`${tenant}$uploader`)!.quota.enabled = false;
    setUsage(5000 * KIB);
    expect(await check()).toBe(0);
    expect(await billing(owner)).toHaveLength(3);
  });
});
