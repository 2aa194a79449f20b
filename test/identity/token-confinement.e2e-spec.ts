import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountsRepository, MembershipsRepository, SCOPE_RESOURCES } from '@platform/identity';
import { NotificationCenterRepository } from '@platform/notifications';
import { eventually } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, mintToken, type TestAccount } from '../support/identity.js';

/** Every scope there is, at every level: what a token could do if scopes were all that counted. */
const EVERY_SCOPE = SCOPE_RESOURCES.map((resource) => `${resource}:*`);

/**
 * A static token acts only inside its own organization, account-wide routes included. Ada
 * belongs to organization A (hers) and organization B (Bob's); her organization-B tokens must
 * neither read nor change what she sees through organization A.
 */
describe('static tokens confined to their organization on account-wide routes', () => {
  let t: MailingTestApp;
  let ada: TestAccount;
  let bob: TestAccount;
  let orgA: string;
  let orgB: string;
  /** Ada's notifications: two alert escalations in A, two feature requests in B, one of none. */
  const inA: string[] = [];
  const inB: string[] = [];
  let ofNone: string;
  /** An organization-B token with only dns:read, as in the finding. */
  let dnsOnlyB: string;
  /** An organization-B token with every scope there is. */
  let everythingB: string;

  const get = (path: string, token: string) => t.request().get(path).set(bearer(token));

  async function seed(organizationId: string | null, categoryKey: string): Promise<string> {
    t.clock.advance({ seconds: 1 });
    const [created] = await t.get(NotificationCenterRepository).insertMany(
      [
        {
          accountId: ada.accountId,
          organizationId,
          categoryKey,
          eventType: 'fired',
          payload: { organizationId },
        },
      ],
      t.clock.now(),
    );
    return created.id;
  }

  /** Ada's unread notification ids, as her login session sees them (every organization). */
  async function unreadSeenBySession(): Promise<string[]> {
    const res = await get('/notifications?unread=true&limit=100', ada.jwt).expect(200);
    return (res.body.data as Array<{ id: string }>).map((n) => n.id).sort();
  }

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    ada = await createAccount(t, t.sink, 'ada@confinement.example', 'Org A');
    bob = await createAccount(t, t.sink, 'bob@confinement.example', 'Org B');
    orgA = ada.organizationId;
    orgB = bob.organizationId;
    await t
      .get(MembershipsRepository)
      .add(t.get(DataSource).manager, orgB, ada.accountId, 'developer', t.clock.now());
    inA.push(await seed(orgA, 'alert_escalation'), await seed(orgA, 'alert_escalation'));
    inB.push(await seed(orgB, 'feature_request'), await seed(orgB, 'feature_request'));
    ofNone = await seed(null, 'billing');
    dnsOnlyB = await mintToken(t, ada.jwt, ['dns:read'], `?organization_id=${orgB}`);
    everythingB = await mintToken(t, ada.jwt, EVERY_SCOPE, `?organization_id=${orgB}`);
    // Minting told Ada twice (security notices in organization B, written by the worker); this
    // file counts only the notifications it seeded.
    const minted = `SELECT id FROM notification WHERE account_id = $1 AND category_key = 'security'`;
    await eventually(
      () => t.get(DataSource).query(minted, [ada.accountId]),
      (rows: unknown[]) => rows.length === 2,
      'the token notices',
    );
    await t
      .get(DataSource)
      .query(`DELETE FROM notification WHERE id IN (${minted})`, [ada.accountId]);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('the finding: an organization-B token with only dns:read', () => {
    it('no longer reads the notification center: 403 insufficient_scope', async () => {
      for (const path of [
        '/notifications',
        '/notifications/unread_count',
        '/notification_categories',
      ]) {
        const res = await get(path, dnsOnlyB).expect(403);
        expect(res.body).toMatchObject({
          code: 'insufficient_scope',
          message: "The token's scopes do not cover notifications:read",
        });
      }
    });

    it('no longer creates absences, switches off escalation e-mail or changes the phone', async () => {
      const attempts = [
        t.request().post('/notification_absences').send({
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-02-01T00:00:00Z',
        }),
        t
          .request()
          .patch('/notification_preferences')
          .send({
            preferences: [{ category_key: 'alert_escalation', channel: 'email', enabled: false }],
          }),
        t.request().patch('/notification_schedule').send({ email_mode: 'daily_digest' }),
        t.request().put('/accounts/me/phone').send({ phone_number: '+4915123456789' }),
        t.request().delete('/accounts/me/phone'),
      ];
      for (const attempt of attempts) {
        const res = await attempt.set(bearer(dnsOnlyB)).expect(403);
        expect(res.body.code).toBe('interactive_session_required');
      }
      // Nothing changed for the account.
      expect((await get('/notification_absences', ada.jwt).expect(200)).body.data).toEqual([]);
      expect((await get('/notification_preferences', ada.jwt).expect(200)).body.data).toEqual([]);
      expect((await get('/notification_schedule', ada.jwt).expect(200)).body.data.email_mode).toBe(
        'instant',
      );
      const me = await get('/accounts/me', ada.jwt).expect(200);
      expect(me.body.data.phone_number).toBeNull();
    });
  });

  describe('an organization-B token with every scope', () => {
    it("lists only organization B's notifications, and counts only those", async () => {
      const list = await get('/notifications', everythingB).expect(200);
      expect(list.body.metadata).toMatchObject({ organization_id: null, count: 2, total: 2 });
      expect(
        (list.body.data as Array<{ id: string; organization_id: string }>).map((n) => [
          n.id,
          n.organization_id,
        ]),
      ).toEqual([
        [inB[1], orgB],
        [inB[0], orgB],
      ]);
      const unread = await get('/notifications/unread_count', everythingB).expect(200);
      expect(unread.body.data).toEqual({ unread_count: 2 });
      // The session still sees all five.
      expect((await get('/notifications/unread_count', ada.jwt).expect(200)).body.data).toEqual({
        unread_count: 5,
      });
    });

    it("cannot mark organization A's notification read (404), only its own", async () => {
      const foreign = await t
        .request()
        .patch(`/notifications/${inA[0]}/read`)
        .set(bearer(everythingB))
        .expect(404);
      expect(foreign.body.code).toBe('not_found');
      await t.request().patch(`/notifications/${ofNone}/read`).set(bearer(everythingB)).expect(404);
      const own = await t
        .request()
        .patch(`/notifications/${inB[0]}/read`)
        .set(bearer(everythingB))
        .expect(200);
      expect(own.body.data).toEqual({ id: inB[0], read_at: expect.any(String) });
      expect(await unreadSeenBySession()).toEqual([inA[0], inA[1], inB[1], ofNone].sort());
    });

    it('marks all read within organization B only', async () => {
      const res = await t
        .request()
        .post('/notifications/mark_all_read')
        .set(bearer(everythingB))
        .expect(200);
      expect(res.body.data).toEqual({ ok: true });
      expect(await unreadSeenBySession()).toEqual([inA[0], inA[1], ofNone].sort());
      expect((await get('/notifications/unread_count', everythingB).expect(200)).body.data).toEqual(
        { unread_count: 0 },
      );
    });

    it("still may not touch the account's own settings, which serve every organization", async () => {
      const calls = [
        t.request().get('/notification_absences'),
        t.request().post('/notification_absences').send({
          starts_at: '2030-01-01T00:00:00Z',
          ends_at: '2030-02-01T00:00:00Z',
        }),
        t.request().delete('/notification_absences/00000000-0000-4000-8000-000000000000'),
        t.request().get('/notification_preferences'),
        t.request().patch('/notification_preferences').send({ preferences: [] }),
        t.request().get('/notification_schedule'),
        t.request().patch('/notification_schedule').send({}),
        t.request().put('/accounts/me/phone').send({ phone_number: '+4915123456789' }),
        t.request().post('/accounts/me/phone/verify').send({ code: '123456' }),
        t.request().delete('/accounts/me/phone'),
        t.request().post('/broadcasts/00000000-0000-4000-8000-000000000000/dismiss'),
      ];
      for (const call of calls) {
        const res = await call.set(bearer(everythingB));
        expect([res.status, res.body.code]).toEqual([403, 'interactive_session_required']);
      }
    });

    it('sees only organization B among the organizations and memberships', async () => {
      const organizations = await get('/organizations', everythingB).expect(200);
      expect((organizations.body.data as Array<{ id: string }>).map((o) => o.id)).toEqual([orgB]);
      const me = await get('/accounts/me', everythingB).expect(200);
      expect(me.body.data).toMatchObject({
        id: ada.accountId,
        current_organization_id: orgB,
        memberships: [expect.objectContaining({ organization_id: orgB, role: 'developer' })],
      });
      expect(me.body.data.memberships).toHaveLength(1);
      // The session sees both.
      const sessionMe = await get('/accounts/me', ada.jwt).expect(200);
      expect(
        (sessionMe.body.data.memberships as Array<{ organization_id: string }>)
          .map((m) => m.organization_id)
          .sort(),
      ).toEqual([orgA, orgB].sort());
    });
  });

  describe('scopes on account-wide routes', () => {
    it('notifications:read reads but does not mark; notifications:write marks', async () => {
      const fresh = await seed(orgB, 'feature_request');
      const reader = await mintToken(
        t,
        ada.jwt,
        ['notifications:read'],
        `?organization_id=${orgB}`,
      );
      await get('/notifications', reader).expect(200);
      await get('/broadcasts/active', reader).expect(200);
      for (const call of [
        t.request().patch(`/notifications/${fresh}/read`),
        t.request().post('/notifications/mark_all_read'),
      ]) {
        const res = await call.set(bearer(reader)).expect(403);
        expect(res.body).toMatchObject({
          code: 'insufficient_scope',
          message: "The token's scopes do not cover notifications:update",
        });
      }
      const writer = await mintToken(
        t,
        ada.jwt,
        ['notifications:write'],
        `?organization_id=${orgB}`,
      );
      await t.request().patch(`/notifications/${fresh}/read`).set(bearer(writer)).expect(200);
    });

    it('organization:read is needed for the organizations and the account context', async () => {
      for (const path of ['/organizations', '/accounts/me']) {
        const res = await get(path, dnsOnlyB).expect(403);
        expect(res.body).toMatchObject({
          code: 'insufficient_scope',
          message: "The token's scopes do not cover organization:read",
        });
      }
      const reader = await mintToken(t, ada.jwt, ['organization:read'], `?organization_id=${orgB}`);
      await get('/accounts/me', reader).expect(200);
    });
  });

  it("refuses a platform admin's token the platform-wide broadcasts: only sessions publish", async () => {
    await t.get(AccountsRepository).update(bob.accountId, { isPlatformAdmin: true }, t.clock.now());
    const token = await mintToken(t, bob.jwt, EVERY_SCOPE);
    const body = { title: 'Maintenance', body: 'Tonight', severity: 'info', banner: true };
    const refused = await t
      .request()
      .post('/admin/broadcasts')
      .set(bearer(token))
      .send(body)
      .expect(403);
    expect(refused.body.code).toBe('interactive_session_required');
    await t.request().post('/admin/broadcasts').set(bearer(bob.jwt)).send(body).expect(201);
    // Every account is notified of it (of no organization), by the worker.
    await eventually(
      () =>
        t
          .get(DataSource)
          .query(
            `SELECT 1 FROM notification WHERE account_id = $1 AND category_key = 'broadcast'`,
            [ada.accountId],
          ),
      (rows: unknown[]) => rows.length === 1,
      "Ada's broadcast notification",
    );
    // Reading the platform's banners is the same in every organization.
    const active = await get('/broadcasts/active', everythingB).expect(200);
    expect((active.body.data as Array<{ title: string }>).map((b) => b.title)).toEqual([
      'Maintenance',
    ]);
  });

  it("keeps login sessions' account-wide view: every organization, settings included", async () => {
    const session = await get('/notifications?limit=100', ada.jwt).expect(200);
    expect((session.body.data as Array<{ id: string }>).map((n) => n.id)).toEqual(
      expect.arrayContaining([...inA, ...inB, ofNone]),
    );
    await t
      .request()
      .post('/notification_absences')
      .set(bearer(ada.jwt))
      .send({ starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-02-01T00:00:00Z' })
      .expect(201);
    await t.request().post('/notifications/mark_all_read').set(bearer(ada.jwt)).expect(200);
    expect(await unreadSeenBySession()).toEqual([]);
  });
});
