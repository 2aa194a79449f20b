import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { bearer, createAccount, type TestAccount } from '../support/identity.js';

const DEFAULT = {
  email_mode: 'instant',
  quiet_start: null,
  quiet_end: null,
  timezone: 'Europe/Berlin',
  digest_hour: 8,
  mandatory_instant_categories: ['security', 'platform_incident', 'alert_escalation'],
};

describe('notification schedule', () => {
  let t: MailingTestApp;
  let ada: TestAccount;

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    ada = await createAccount(t, t.sink, 'ada@schedule.example');
  });

  afterAll(async () => {
    await t.close();
  });

  const get = async () =>
    (await t.request().get('/notification_schedule').set(bearer(ada.jwt)).expect(200)).body;

  it('answers the unpersisted default when none is stored, never 404', async () => {
    const body = await get();
    expect(body.metadata.organization_id).toBeNull();
    expect(body.data).toEqual(DEFAULT);
    await get();
    expect(
      await t
        .get(DataSource)
        .query('SELECT account_id FROM notification_schedule WHERE account_id = $1', [
          ada.accountId,
        ]),
    ).toEqual([]);
  });

  it('upserts the sent fields and keeps the others', async () => {
    const res = await t
      .request()
      .patch('/notification_schedule')
      .set(bearer(ada.jwt))
      .send({ email_mode: 'daily_digest', quiet_start: '22:00', quiet_end: '07:00' })
      .expect(200);
    expect(res.body.data).toEqual({
      ...DEFAULT,
      email_mode: 'daily_digest',
      quiet_start: '22:00',
      quiet_end: '07:00',
    });
    await t
      .request()
      .patch('/notification_schedule')
      .set(bearer(ada.jwt))
      .send({ digest_hour: 0, timezone: 'Berlin' })
      .expect(200);
    expect((await get()).data).toEqual({
      ...DEFAULT,
      email_mode: 'daily_digest',
      quiet_start: '22:00',
      quiet_end: '07:00',
      digest_hour: 0,
      timezone: 'Berlin',
    });
    await t
      .request()
      .patch('/notification_schedule')
      .set(bearer(ada.jwt))
      .send({ quiet_start: null, quiet_end: null })
      .expect(200);
    expect((await get()).data).toMatchObject({
      quiet_start: null,
      quiet_end: null,
      digest_hour: 0,
    });
  });

  it.each(['America/New_York', 'Eastern Time (US & Canada)', 'UTC', 'Asia/Kolkata'])(
    'accepts the time zone %s',
    async (timezone) => {
      const res = await t
        .request()
        .patch('/notification_schedule')
        .set(bearer(ada.jwt))
        .send({ timezone })
        .expect(200);
      expect(res.body.data.timezone).toBe(timezone);
    },
  );

  it('ignores the read-only mandatory_instant_categories', async () => {
    const res = await t
      .request()
      .patch('/notification_schedule')
      .set(bearer(ada.jwt))
      .send({ mandatory_instant_categories: [] })
      .expect(200);
    expect(res.body.data.mandatory_instant_categories).toEqual(
      DEFAULT.mandatory_instant_categories,
    );
  });

  it.each([
    [{ email_mode: 'weekly' }, 'email_mode'],
    [{ quiet_start: '24:00' }, 'quiet_start'],
    [{ quiet_end: '12:60' }, 'quiet_end'],
    [{ quiet_start: '7:00' }, 'quiet_start'],
    [{ quiet_end: 700 }, 'quiet_end'],
    [{ timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    [{ timezone: '' }, 'timezone'],
    [{ digest_hour: 24 }, 'digest_hour'],
    [{ digest_hour: -1 }, 'digest_hour'],
    [{ digest_hour: 7.5 }, 'digest_hour'],
    [{ digest_hour: '8' }, 'digest_hour'],
  ])('refuses %j with 422 validation_failed and saves nothing', async (body, field) => {
    const before = (await get()).data;
    const res = await t
      .request()
      .patch('/notification_schedule')
      .set(bearer(ada.jwt))
      .send({ ...body, email_mode: 'email_mode' in body ? body.email_mode : 'hourly_digest' })
      .expect(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect((await get()).data).toEqual(before);
  });
});
