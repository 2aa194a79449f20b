import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { NotificationCenterRepository } from '@platform/notifications';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { bearer, type TestAccount } from '../support/identity.js';

describe('notification center', () => {
  let t: TestApp;
  let ada: TestAccount;
  let other: TestAccount;
  let secondOrg: TestAccount;

  async function seed(
    account: TestAccount,
    count: number,
    organizationId: string | null = account.organizationId,
  ) {
    const repository = t.get(NotificationCenterRepository);
    const created = [];
    for (let i = 0; i < count; i += 1) {
      t.clock.advance({ seconds: 1 });
      created.push(
        ...(await repository.insertMany(
          [
            {
              accountId: account.accountId,
              organizationId,
              categoryKey: 'feature_request',
              eventType: 'approved',
              payload: { n: i },
            },
          ],
          t.clock.now(),
        )),
      );
    }
    return created;
  }

  beforeAll(async () => {
    t = await createApiTestApp({ withWorker: true });
    ada = await seedAccount(t, 'ada@center.example');
    other = await seedAccount(t, 'other@center.example');
    secondOrg = await seedAccount(t, 'second@center.example');
    await seedMember(t, secondOrg, 'ada@center.example', 'viewer');
  });

  afterAll(async () => {
    await t.close();
  });

  it('lists the seven seeded categories exactly', async () => {
    const res = await t.request().get('/notification_categories').set(bearer(ada.jwt)).expect(200);
    expect(res.body.metadata.organization_id).toBeNull();
    const rows = (res.body.data as Array<Record<string, unknown>>).map((c) => [
      c.key,
      c.label,
      c.mandatory_for_admins,
      c.severity,
      c.superadmin_only,
    ]);
    expect(rows).toEqual([
      ['security', 'Security', true, 'critical', false],
      ['billing', 'Billing', true, 'notice', false],
      ['platform_incident', 'Platform Incidents', true, 'critical', false],
      ['capability_update', 'Capability Updates', true, 'notice', false],
      ['alert_escalation', 'Alert Escalations', true, 'critical', false],
      ['feature_request', 'Feature Requests', false, 'info', false],
      ['broadcast', 'Broadcasts', false, 'info', true],
    ]);
    for (const category of res.body.data as Array<{ default_channels: string[] }>) {
      expect(category.default_channels.every((c) => c === 'in_app' || c === 'email')).toBe(true);
    }
  });

  describe('GET /notifications', () => {
    let account: TestAccount;

    beforeAll(async () => {
      account = await seedAccount(t, 'lister@center.example');
      await seed(account, 25);
    });

    it('pages newest first with the default limit of 20 and reports the total', async () => {
      const res = await t.request().get('/notifications').set(bearer(account.jwt)).expect(200);
      expect(res.body.metadata).toMatchObject({ organization_id: null, count: 20, total: 25 });
      const payloads = (res.body.data as Array<{ payload: { n: number } }>).map((n) => n.payload.n);
      expect(payloads).toEqual([...Array(20).keys()].map((i) => 24 - i));
      expect(res.body.data[0]).toMatchObject({
        category: 'feature_request',
        event_type: 'approved',
        organization_id: account.organizationId,
        organization_name: `Org of lister@center.example`,
        read_at: null,
      });
      expect(Object.keys(res.body.data[0] as object).sort()).toEqual([
        'category',
        'created_at',
        'event_type',
        'id',
        'organization_id',
        'organization_name',
        'payload',
        'read_at',
      ]);
    });

    it.each([
      ['limit=5&offset=3', 5, 21],
      ['limit=0', 1, 24],
      ['limit=-4', 1, 24],
      ['limit=1000', 25, 24],
      ['limit=abc&offset=xyz', 20, 24],
      ['offset=-10', 20, 24],
      ['unread=bogus', 20, 24],
      ['offset=24', 1, 0],
      ['offset=99', 0, null],
    ])('clamps %s instead of failing', async (query, count, first) => {
      const res = await t
        .request()
        .get(`/notifications?${query}`)
        .set(bearer(account.jwt))
        .expect(200);
      expect(res.body.metadata.count).toBe(count);
      if (first !== null) expect(res.body.data[0].payload.n).toBe(first);
    });

    it('caps the limit at 100 when more than 100 exist', async () => {
      const many = await seedAccount(t, 'many@center.example');
      await t.get(DataSource).query(
        `INSERT INTO notification (account_id, organization_id, category_key, event_type, payload, created_at)
         SELECT $1, $2, 'feature_request', 'approved', jsonb_build_object('n', n),
                $3::timestamptz + make_interval(secs => n)
           FROM generate_series(0, 104) AS n`,
        [many.accountId, many.organizationId, t.clock.now().toISOString()],
      );
      const res = await t
        .request()
        .get('/notifications?limit=1000')
        .set(bearer(many.jwt))
        .expect(200);
      expect(res.body.metadata).toMatchObject({ count: 100, total: 105 });
      const payloads = (res.body.data as Array<{ payload: { n: number } }>).map((n) => n.payload.n);
      expect(payloads).toEqual([...Array(100).keys()].map((i) => 104 - i));
      const rest = await t
        .request()
        .get('/notifications?limit=1000&offset=100')
        .set(bearer(many.jwt))
        .expect(200);
      expect(rest.body.metadata).toMatchObject({ count: 5, total: 105 });
      expect(rest.body.data.map((n: { payload: { n: number } }) => n.payload.n)).toEqual([
        4, 3, 2, 1, 0,
      ]);
    });

    it('filters by unread', async () => {
      const all = await t
        .request()
        .get('/notifications?limit=100')
        .set(bearer(account.jwt))
        .expect(200);
      const target = all.body.data[3].id as string;
      await t.request().patch(`/notifications/${target}/read`).set(bearer(account.jwt)).expect(200);
      const unread = await t
        .request()
        .get('/notifications?unread=true&limit=100')
        .set(bearer(account.jwt))
        .expect(200);
      const read = await t
        .request()
        .get('/notifications?unread=false')
        .set(bearer(account.jwt))
        .expect(200);
      expect(unread.body.metadata.total).toBe(24);
      expect((unread.body.data as Array<{ id: string }>).some((n) => n.id === target)).toBe(false);
      expect(read.body.data.map((n: { id: string }) => n.id)).toEqual([target]);
      const count = await t
        .request()
        .get('/notifications/unread_count')
        .set(bearer(account.jwt))
        .expect(200);
      expect(count.body.data).toEqual({ unread_count: 24 });
    });
  });

  it('marks one read, keeps the first read_at, and answers 404 for anyone else', async () => {
    const [notification] = await seed(ada, 1);
    const first = await t
      .request()
      .patch(`/notifications/${notification.id}/read`)
      .set(bearer(ada.jwt))
      .expect(200);
    expect(first.body.data).toEqual({ id: notification.id, read_at: t.clock.now().toISOString() });
    t.clock.advance({ minutes: 5 });
    const again = await t
      .request()
      .patch(`/notifications/${notification.id}/read`)
      .set(bearer(ada.jwt))
      .expect(200);
    expect(again.body.data.read_at).toBe(first.body.data.read_at);

    const [foreign] = await seed(other, 1);
    const res = await t
      .request()
      .patch(`/notifications/${foreign.id}/read`)
      .set(bearer(ada.jwt))
      .expect(404);
    expect(res.body.code).toBe('not_found');
    await t.request().patch('/notifications/not-a-uuid/read').set(bearer(ada.jwt)).expect(404);
    const otherCount = await t
      .request()
      .get('/notifications/unread_count')
      .set(bearer(other.jwt))
      .expect(200);
    expect(otherCount.body.data.unread_count).toBeGreaterThan(0);
  });

  it('marks all read across every organization of the caller, and nobody else', async () => {
    await seed(ada, 2);
    await seed(ada, 2, secondOrg.organizationId);
    await seed(other, 1);
    const before = await t
      .request()
      .get('/notifications/unread_count')
      .set(bearer(other.jwt))
      .expect(200);
    const res = await t
      .request()
      .post('/notifications/mark_all_read')
      .set(bearer(ada.jwt))
      .expect(200);
    expect(res.body.data).toEqual({ ok: true });
    expect(
      (await t.request().get('/notifications/unread_count').set(bearer(ada.jwt))).body.data
        .unread_count,
    ).toBe(0);
    expect(
      (await t.request().get('/notifications/unread_count').set(bearer(other.jwt))).body.data,
    ).toEqual(before.body.data);
    const rows = (await t
      .get(DataSource)
      .query(
        'SELECT count(*)::int AS n FROM notification WHERE account_id = $1 AND read_at IS NULL',
        [ada.accountId],
      )) as Array<{ n: number }>;
    expect(rows[0].n).toBe(0);
  });

  it('needs no organization context even with several memberships', async () => {
    const me = await t.request().get('/accounts/me').set(bearer(ada.jwt)).expect(200);
    expect((me.body.data.memberships as unknown[]).length).toBe(2);
    await t.request().get('/notifications').set(bearer(ada.jwt)).expect(200);
    await t.request().get('/notification_preferences').set(bearer(ada.jwt)).expect(200);
  });
});
