import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { addMember, bearer, createAccount, type TestAccount } from '../support/identity.js';

type Body = Record<string, unknown>;
type Res = { status: number; body: Body };

const BERLIN_DAILY = {
  time_zone: 'Europe/Berlin',
  start_date: '2025-03-28',
  handoff_time: '09:00',
  shift_length: 'daily',
};

describe('on-call rotations, overrides and shifts', () => {
  let t: MailingTestApp;
  let owner: TestAccount;
  let ann: TestAccount;
  let bob: TestAccount;
  let cid: TestAccount;
  let stranger: TestAccount;
  let projectId: string;

  const base = () => `/projects/${projectId}/on_call_rosters`;
  const send = (method: 'post' | 'patch' | 'put', path: string, body: Body, jwt = owner.jwt) =>
    t.request()[method](path).set(bearer(jwt)).send(body);
  const get = (path: string, jwt = owner.jwt) => t.request().get(path).set(bearer(jwt));
  const del = (path: string, jwt = owner.jwt) => t.request().delete(path).set(bearer(jwt));
  const fieldsOf = (body: Body) =>
    ((body.details as { fields: Array<{ field: string }> }).fields ?? []).map((f) => f.field);
  const expect422 = (res: Res, fields: string[]) => {
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(fieldsOf(res.body)).toEqual(fields);
  };
  const expect404 = (res: Res) => {
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  };

  /** A roster with `members` in that order and, when given, a rotation. */
  const roster = async (name: string, members: TestAccount[], rotation?: Body) => {
    const id = (await send('post', base(), { name }).expect(201)).body.data.id as string;
    for (const m of members)
      await send('post', `${base()}/${id}/on_call_roster_members`, {
        account_id: m.accountId,
      }).expect(201);
    if (rotation) await send('put', `${base()}/${id}/rotation`, rotation).expect(200);
    return id;
  };
  const override = async (rosterId: string, account: TestAccount, from: string, to: string) =>
    (
      await send('post', `${base()}/${rosterId}/on_call_overrides`, {
        account_id: account.accountId,
        starts_at: from,
        ends_at: to,
      }).expect(201)
    ).body.data as Body;
  const shifts = async (rosterId: string, from: string, to: string) =>
    (
      (await get(`${base()}/${rosterId}/shifts?from=${from}&to=${to}`).expect(200)).body
        .data as Body[]
    ).map((s) => [s.name, s.starts_at, s.ends_at, s.source]);

  beforeAll(async () => {
    t = await createMailingApiTestApp();
    owner = await createAccount(t, t.sink, 'owner@example.com', 'Schedule Org');
    ann = await addMember(t, t.sink, owner, 'ann@example.com', 'developer');
    bob = await addMember(t, t.sink, owner, 'bob@example.com', 'developer');
    cid = await addMember(t, t.sink, owner, 'cid@example.com', 'operator');
    stranger = await createAccount(t, t.sink, 'stranger@example.com', 'Stranger Org');
    projectId = await alertsProject(t, owner, 'production');
  });

  afterAll(async () => {
    await t.close();
  });

  describe('rotation', () => {
    it('answers 404 without a rotation, creates one with PUT and replaces it', async () => {
      const id = await roster('Rotating', []);
      const path = `${base()}/${id}/rotation`;
      expect404(await get(path));
      const created = await send('put', path, BERLIN_DAILY).expect(200);
      const createdAt = t.clock.now().toISOString();
      expect(created.body.data).toEqual({
        roster_id: id,
        ...BERLIN_DAILY,
        shift_hours: null,
        created_at: createdAt,
        updated_at: createdAt,
      });
      expect((await get(path).expect(200)).body.data).toEqual(created.body.data);

      t.clock.advance({ seconds: 10 });
      const replaced = await send('put', path, {
        time_zone: 'America/New_York',
        start_date: '2025-11-01',
        handoff_time: '18:30',
        shift_length: 'hours',
        shift_hours: 12,
      }).expect(200);
      expect(replaced.body.data).toEqual({
        roster_id: id,
        time_zone: 'America/New_York',
        start_date: '2025-11-01',
        handoff_time: '18:30',
        shift_length: 'hours',
        shift_hours: 12,
        created_at: createdAt,
        updated_at: t.clock.now().toISOString(),
      });
      await del(path).expect(204);
      expect404(await get(path));
      expect404(await del(path));
      expect((await get(`${base()}/${id}`).expect(200)).body.data.rotation).toBeNull();
    });

    it('validates every field and keeps the rotation as it was', async () => {
      const id = await roster('Strict', [], BERLIN_DAILY);
      const path = `${base()}/${id}/rotation`;
      const before = (await get(path).expect(200)).body.data;
      const put = (change: Body) => send('put', path, { ...BERLIN_DAILY, ...change });
      expect422(await put({ time_zone: 'Mars/Olympus_Mons' }), ['time_zone']);
      expect422(await put({ time_zone: '+02:00' }), ['time_zone']);
      expect422(await put({ time_zone: null }), ['time_zone']);
      expect422(await put({ start_date: '2030-02-30' }), ['start_date']);
      expect422(await put({ start_date: '28.03.2025' }), ['start_date']);
      expect422(await put({ start_date: '2025-03-28T09:00:00Z' }), ['start_date']);
      expect422(await put({ handoff_time: '24:00' }), ['handoff_time']);
      expect422(await put({ handoff_time: '9:00' }), ['handoff_time']);
      expect422(await put({ handoff_time: '09:60' }), ['handoff_time']);
      expect422(await put({ shift_length: 'monthly' }), ['shift_length']);
      expect422(await put({ shift_length: 'hours' }), ['shift_hours']);
      expect422(await put({ shift_length: 'hours', shift_hours: 0 }), ['shift_hours']);
      expect422(await put({ shift_length: 'hours', shift_hours: 745 }), ['shift_hours']);
      expect422(await put({ shift_length: 'hours', shift_hours: 1.5 }), ['shift_hours']);
      expect422(await put({ shift_hours: 24 }), ['shift_hours']);
      expect422(await send('put', path, {}), [
        'time_zone',
        'start_date',
        'handoff_time',
        'shift_length',
      ]);
      expect((await get(path).expect(200)).body.data).toEqual(before);
      await put({ shift_length: 'hours', shift_hours: 744 }).expect(200);
      const cased = await put({ time_zone: 'europe/berlin' }).expect(200);
      expect(cased.body.data.time_zone).toBe('Europe/Berlin');
      const alias = await put({ time_zone: 'US/Eastern' }).expect(200);
      expect(alias.body.data.time_zone).toBe('US/Eastern');
      await put({ shift_length: 'weekly', shift_hours: null }).expect(200);
    });
  });

  describe('overrides', () => {
    it('creates, lists by starts_at with an optional window, shows and deletes', async () => {
      const id = await roster('Overridden', [ann]);
      const path = `${base()}/${id}/on_call_overrides`;
      const later = await override(id, bob, '2030-01-10T00:00:00Z', '2030-01-11T00:00:00Z');
      expect(later).toEqual({
        id: expect.any(String),
        roster_id: id,
        account_id: bob.accountId,
        name: 'bob',
        starts_at: '2030-01-10T00:00:00.000Z',
        ends_at: '2030-01-11T00:00:00.000Z',
        created_at: t.clock.now().toISOString(),
      });
      const earlier = await override(
        id,
        cid,
        '2030-01-01T09:00:00+01:00',
        '2030-01-02T09:00:00+01:00',
      );
      expect(earlier.starts_at).toBe('2030-01-01T08:00:00.000Z');
      const ids = async (query = '') =>
        ((await get(`${path}${query}`).expect(200)).body.data as Body[]).map((o) => o.id);
      expect(await ids()).toEqual([earlier.id, later.id]);
      expect(await ids('?from=2030-01-05T00:00:00Z')).toEqual([later.id]);
      expect(await ids('?to=2030-01-05T00:00:00Z')).toEqual([earlier.id]);
      // Overlap, not containment: ends exactly at `from` is out, starts before `to` is in.
      expect(await ids('?from=2030-01-11T00:00:00Z')).toEqual([]);
      expect(await ids('?from=2030-01-01T00:00:00Z&to=2030-01-10T00:00:01Z')).toEqual([
        earlier.id,
        later.id,
      ]);
      expect422(await get(`${path}?from=yesterday`), ['from']);
      expect422(await get(`${path}?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z`), ['to']);

      const one = `${path}/${later.id as string}`;
      expect((await get(one).expect(200)).body.data).toEqual(later);
      await del(one).expect(204);
      expect404(await get(one));
      expect404(await del(one));
      expect(await ids()).toEqual([earlier.id]);
    });

    it('needs an organization member and ends_at after starts_at, writing nothing otherwise', async () => {
      const id = await roster('Override rules', []);
      const path = `${base()}/${id}/on_call_overrides`;
      const body = {
        account_id: ann.accountId,
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-02T00:00:00Z',
      };
      expect422(await send('post', path, { ...body, account_id: stranger.accountId }), [
        'account_id',
      ]);
      expect422(await send('post', path, { ...body, ends_at: body.starts_at }), ['ends_at']);
      expect422(
        await send('post', path, {
          ...body,
          account_id: stranger.accountId,
          ends_at: '2029-12-31T00:00:00Z',
        }),
        ['account_id', 'ends_at'],
      );
      expect422(await send('post', path, { ...body, starts_at: '2030-01-01T00:00:00' }), [
        'starts_at',
      ]);
      expect422(await send('post', path, { ...body, starts_at: '2030-02-30T00:00:00Z' }), [
        'starts_at',
      ]);
      expect422(await send('post', path, {}), ['account_id', 'starts_at', 'ends_at']);
      expect((await get(path).expect(200)).body.data).toEqual([]);
    });
  });

  describe('shifts', () => {
    it('hands over at 09:00 Berlin time across spring forward, with an override cutting in', async () => {
      const id = await roster('Berlin', [ann, bob, cid], BERLIN_DAILY);
      expect(await shifts(id, '2025-03-29T00:00:00Z', '2025-04-01T00:00:00Z')).toEqual([
        ['ann', '2025-03-29T00:00:00.000Z', '2025-03-29T08:00:00.000Z', 'rotation'],
        ['bob', '2025-03-29T08:00:00.000Z', '2025-03-30T07:00:00.000Z', 'rotation'],
        ['cid', '2025-03-30T07:00:00.000Z', '2025-03-31T07:00:00.000Z', 'rotation'],
        ['ann', '2025-03-31T07:00:00.000Z', '2025-04-01T00:00:00.000Z', 'rotation'],
      ]);
      await override(id, owner, '2025-03-29T12:00:00Z', '2025-03-29T18:00:00Z');
      const res = await get(
        `${base()}/${id}/shifts?from=2025-03-29T08:00:00Z&to=2025-03-30T07:00:00Z`,
      ).expect(200);
      expect(res.body.data).toEqual([
        {
          account_id: bob.accountId,
          name: 'bob',
          starts_at: '2025-03-29T08:00:00.000Z',
          ends_at: '2025-03-29T12:00:00.000Z',
          source: 'rotation',
        },
        {
          account_id: owner.accountId,
          name: 'owner',
          starts_at: '2025-03-29T12:00:00.000Z',
          ends_at: '2025-03-29T18:00:00.000Z',
          source: 'override',
        },
        {
          account_id: bob.accountId,
          name: 'bob',
          starts_at: '2025-03-29T18:00:00.000Z',
          ends_at: '2025-03-30T07:00:00.000Z',
          source: 'rotation',
        },
      ]);
    });

    it('keeps weekly New York handoffs at local time across fall back (169 hours)', async () => {
      const id = await roster('New York', [ann, bob], {
        time_zone: 'America/New_York',
        start_date: '2025-10-27',
        handoff_time: '10:00',
        shift_length: 'weekly',
      });
      expect(await shifts(id, '2025-10-20T00:00:00Z', '2025-11-10T15:00:00Z')).toEqual([
        ['ann', '2025-10-27T14:00:00.000Z', '2025-11-03T15:00:00.000Z', 'rotation'],
        ['bob', '2025-11-03T15:00:00.000Z', '2025-11-10T15:00:00.000Z', 'rotation'],
      ]);
    });

    it('counts N-hour shifts in elapsed hours', async () => {
      const id = await roster('Twelve hours', [ann, bob], {
        time_zone: 'America/New_York',
        start_date: '2025-03-08',
        handoff_time: '20:00',
        shift_length: 'hours',
        shift_hours: 12,
      });
      expect(await shifts(id, '2025-03-09T00:00:00Z', '2025-03-10T02:00:00Z')).toEqual([
        ['ann', '2025-03-09T01:00:00.000Z', '2025-03-09T13:00:00.000Z', 'rotation'],
        ['bob', '2025-03-09T13:00:00.000Z', '2025-03-10T01:00:00.000Z', 'rotation'],
        ['ann', '2025-03-10T01:00:00.000Z', '2025-03-10T02:00:00.000Z', 'rotation'],
      ]);
    });

    it('needs from and to, to after from, at most 90 days apart', async () => {
      const id = await roster('Windows', [ann], BERLIN_DAILY);
      const path = `${base()}/${id}/shifts`;
      expect422(await get(path), ['from', 'to']);
      expect422(await get(`${path}?from=2025-04-01T00:00:00Z`), ['to']);
      expect422(await get(`${path}?from=2025-04-01&to=2025-04-02T00:00:00Z`), ['from']);
      expect422(await get(`${path}?from=2025-04-02T00:00:00Z&to=2025-04-01T00:00:00Z`), ['to']);
      expect422(await get(`${path}?from=2025-04-01T00:00:00Z&to=2025-04-01T00:00:00Z`), ['to']);
      expect422(await get(`${path}?from=2025-04-01T00:00:00Z&to=2025-06-30T00:00:01Z`), ['to']);
      const longest = await get(`${path}?from=2025-04-01T00:00:00Z&to=2025-06-30T00:00:00Z`).expect(
        200,
      );
      expect(longest.body.data).toHaveLength(91);
      // Nobody before the first handoff.
      expect(await shifts(id, '2025-01-01T00:00:00Z', '2025-03-28T08:00:00Z')).toEqual([]);
    });
  });
});
