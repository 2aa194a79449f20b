import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SmtpSink } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, login, type TestAccount } from '../support/identity.js';

describe('notification preferences, absences and broadcasts', () => {
  let t: MailingTestApp;
  let sink: SmtpSink;
  let ada: TestAccount;
  let bob: TestAccount;
  let adminJwt: string;
  const admin = { login: 'root@settings.example', password: 'platform admin password 1' };

  beforeAll(async () => {
    t = await createMailingApiTestApp({ config: { platformAdmin: admin } });
    sink = t.sink;
    ada = await createAccount(t, sink, 'ada@settings.example');
    bob = await createAccount(t, sink, 'bob@settings.example');
    adminJwt = await login(t, admin.login, admin.password);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('preferences', () => {
    it('starts empty and upserts the sent rows', async () => {
      expect(
        (await t.request().get('/notification_preferences').set(bearer(ada.jwt)).expect(200)).body
          .data,
      ).toEqual([]);
      await t
        .request()
        .patch('/notification_preferences')
        .set(bearer(ada.jwt))
        .send({
          preferences: [
            { category_key: 'billing', channel: 'email', enabled: false },
            { category_key: 'security', channel: 'sms', enabled: true },
          ],
        })
        .expect(200)
        .expect((res) => expect(res.body.data).toEqual({ ok: true }));
      await t
        .request()
        .patch('/notification_preferences')
        .set(bearer(ada.jwt))
        .send({ preferences: [{ category_key: 'billing', channel: 'email', enabled: true }] })
        .expect(200);
      const res = await t
        .request()
        .get('/notification_preferences')
        .set(bearer(ada.jwt))
        .expect(200);
      expect(
        (res.body.data as Array<Record<string, unknown>>).map((p) => [
          p.category_key,
          p.channel,
          p.enabled,
        ]),
      ).toEqual([
        ['billing', 'email', true],
        ['security', 'sms', true],
      ]);
      expect(
        (await t.request().get('/notification_preferences').set(bearer(bob.jwt))).body.data,
      ).toEqual([]);
    });

    it.each([
      [
        { preferences: [{ category_key: 'billing', channel: 'pager', enabled: true }] },
        'preferences[0].channel',
      ],
      [{ preferences: [{ category_key: 'billing', enabled: true }] }, 'preferences[0].channel'],
      [{ preferences: [{ channel: 'email', enabled: true }] }, 'preferences[0].category_key'],
      [{ preferences: [{ category_key: 'billing', channel: 'email' }] }, 'preferences[0].enabled'],
      [
        { preferences: [{ category_key: 'billing', channel: 'email', enabled: 'yes' }] },
        'preferences[0].enabled',
      ],
      [
        { preferences: [{ category_key: 'nope', channel: 'email', enabled: true }] },
        'preferences[0].category_key',
      ],
      [
        { preferences: [{ category_key: 'broadcast', channel: 'email', enabled: true }] },
        'preferences[0].category_key',
      ],
      [{ preferences: ['x'] }, 'preferences[0]'],
      [{}, 'preferences'],
      [{ preferences: 'all' }, 'preferences'],
    ])('refuses %j with 422 unprocessable_entity naming %s', async (body, field) => {
      const res = await t
        .request()
        .patch('/notification_preferences')
        .set(bearer(bob.jwt))
        .send(body)
        .expect(422);
      expect(res.body.code).toBe('unprocessable_entity');
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).toContain(field);
      expect(res.body.message).toContain(field);
    });

    it('saves nothing when one row of several is invalid', async () => {
      await t
        .request()
        .patch('/notification_preferences')
        .set(bearer(bob.jwt))
        .send({
          preferences: [
            { category_key: 'billing', channel: 'email', enabled: false },
            { category_key: 'billing', channel: 'fax', enabled: false },
          ],
        })
        .expect(422);
      expect(
        (await t.request().get('/notification_preferences').set(bearer(bob.jwt))).body.data,
      ).toEqual([]);
    });
  });

  describe('absences', () => {
    it('creates, lists by starts_at and deletes absences of the caller only', async () => {
      const later = await t
        .request()
        .post('/notification_absences')
        .set(bearer(ada.jwt))
        .send({
          starts_at: '2027-02-01T00:00:00Z',
          ends_at: '2027-02-10T00:00:00Z',
          note: 'skiing',
        })
        .expect(201);
      expect(later.body.data).toMatchObject({
        starts_at: '2027-02-01T00:00:00.000Z',
        ends_at: '2027-02-10T00:00:00.000Z',
        note: 'skiing',
      });
      const earlier = await t
        .request()
        .post('/notification_absences')
        .set(bearer(ada.jwt))
        .send({ starts_at: '2027-01-01T08:00:00+01:00', ends_at: '2027-01-02T08:00:00+01:00' })
        .expect(201);
      expect(earlier.body.data.note).toBeNull();
      const list = await t.request().get('/notification_absences').set(bearer(ada.jwt)).expect(200);
      expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([
        earlier.body.data.id,
        later.body.data.id,
      ]);
      expect(list.body.metadata.count).toBe(2);

      const foreign = await t
        .request()
        .delete(`/notification_absences/${later.body.data.id}`)
        .set(bearer(bob.jwt))
        .expect(404);
      expect(foreign.body.code).toBe('not_found');
      await t
        .request()
        .delete(`/notification_absences/${later.body.data.id}`)
        .set(bearer(ada.jwt))
        .expect(204);
      await t
        .request()
        .delete(`/notification_absences/${later.body.data.id}`)
        .set(bearer(ada.jwt))
        .expect(404);
      expect(
        (await t.request().get('/notification_absences').set(bearer(ada.jwt))).body.data,
      ).toHaveLength(1);
    });

    it.each([
      [{ starts_at: '2027-01-02T00:00:00Z', ends_at: '2027-01-02T00:00:00Z' }, 'ends_at'],
      [{ starts_at: '2027-01-02T00:00:00Z', ends_at: '2027-01-01T00:00:00Z' }, 'ends_at'],
      [{ ends_at: '2027-01-01T00:00:00Z' }, 'starts_at'],
      [{ starts_at: 'tomorrow', ends_at: '2027-01-01T00:00:00Z' }, 'starts_at'],
      [{ starts_at: '2027-01-01T00:00:00Z', ends_at: '2027-02-30T00:00:00Z' }, 'ends_at'],
    ])('refuses %j with 422 validation_failed and creates nothing', async (body, field) => {
      const before = (await t.request().get('/notification_absences').set(bearer(bob.jwt))).body
        .data.length as number;
      const res = await t
        .request()
        .post('/notification_absences')
        .set(bearer(bob.jwt))
        .send(body)
        .expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).toContain(field);
      expect(
        (await t.request().get('/notification_absences').set(bearer(bob.jwt))).body.data,
      ).toHaveLength(before);
    });
  });

  describe('broadcasts', () => {
    it('lets only platform admins publish', async () => {
      const res = await t
        .request()
        .post('/admin/broadcasts')
        .set(bearer(ada.jwt))
        .send({ title: 'x', body: 'y', severity: 'info', banner: true })
        .expect(403);
      expect(res.body.code).toBe('forbidden');
      await t
        .request()
        .post('/admin/broadcasts')
        .set(bearer(adminJwt))
        .send({ title: 'x', severity: 'loud', banner: true })
        .expect(422);
    });

    it('shows the 10 most recent published banners the caller has not dismissed', async () => {
      await t.get(DataSource).query('TRUNCATE broadcast CASCADE');
      const ids: string[] = [];
      for (let i = 0; i < 12; i += 1) {
        t.clock.advance({ minutes: 1 });
        const res = await t
          .request()
          .post('/admin/broadcasts')
          .set(bearer(adminJwt))
          .send({
            title: `Maintenance ${i}`,
            body: 'Tonight',
            severity: 'notice',
            banner: i !== 11,
          })
          .expect(201);
        expect(res.body.data).toMatchObject({
          title: `Maintenance ${i}`,
          severity: 'notice',
          banner: i !== 11,
        });
        ids.push(res.body.data.id as string);
      }
      const active = await t.request().get('/broadcasts/active').set(bearer(ada.jwt)).expect(200);
      expect(active.body.data.map((b: { title: string }) => b.title)).toEqual(
        [...Array(10).keys()].map((i) => `Maintenance ${10 - i}`),
      );

      await t
        .request()
        .post(`/broadcasts/${ids[10]}/dismiss`)
        .set(bearer(ada.jwt))
        .expect(200)
        .expect((r) => expect(r.body.data).toEqual({ ok: true }));
      await t
        .request()
        .post(`/broadcasts/${ids[10]}/dismiss`)
        .set(bearer(ada.jwt))
        .expect(200)
        .expect((r) => expect(r.body.data).toEqual({ ok: true }));
      expect(
        await t
          .get(DataSource)
          .query('SELECT broadcast_id FROM broadcast_dismissal WHERE account_id = $1', [
            ada.accountId,
          ]),
      ).toEqual([{ broadcast_id: ids[10] }]);
      const after = await t.request().get('/broadcasts/active').set(bearer(ada.jwt)).expect(200);
      expect(after.body.data.map((b: { title: string }) => b.title)).toEqual(
        [...Array(10).keys()].map((i) => `Maintenance ${9 - i}`),
      );
      const bobs = await t.request().get('/broadcasts/active').set(bearer(bob.jwt)).expect(200);
      expect(bobs.body.data[0].title).toBe('Maintenance 10');
    });

    it('answers 200 to dismissing an unknown broadcast', async () => {
      await t
        .request()
        .post('/broadcasts/00000000-0000-4000-8000-000000000000/dismiss')
        .set(bearer(ada.jwt))
        .expect(200)
        .expect((r) => expect(r.body.data).toEqual({ ok: true }));
      await t
        .request()
        .post('/broadcasts/whatever/dismiss')
        .set(bearer(ada.jwt))
        .expect(200)
        .expect((r) => expect(r.body.data).toEqual({ ok: true }));
      const [{ count }] = (await t.get(DataSource).query(
        `SELECT count(*)::int AS count FROM broadcast_dismissal
            WHERE broadcast_id = '00000000-0000-4000-8000-000000000000'`,
      )) as Array<{ count: number }>;
      expect(count).toBe(0);
    });

    it('does not show a banner before its publication time', async () => {
      const db = t.get(DataSource);
      await db.query('TRUNCATE broadcast CASCADE');
      const [{ id }] = (await db.query(
        `INSERT INTO broadcast (title, body, severity, banner, published_at)
         VALUES ('Upcoming', 'Soon', 'notice', true, $1) RETURNING id`,
        [new Date(t.clock.now().getTime() + 60 * 60 * 1000).toISOString()],
      )) as Array<{ id: string }>;
      const before = await t.request().get('/broadcasts/active').set(bearer(ada.jwt)).expect(200);
      expect(before.body.data).toEqual([]);

      t.clock.advance({ hours: 1 });
      const after = await t.request().get('/broadcasts/active').set(bearer(ada.jwt)).expect(200);
      expect(after.body.data.map((b: { id: string }) => b.id)).toEqual([id]);
    });
  });
});
