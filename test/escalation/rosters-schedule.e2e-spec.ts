import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PutRotationBody } from '../../libs/oncall/src/rosters/rosters.dto.js';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';
import { alertsProject } from '../support/alerting.js';
import { api, expectError, type Loose, type TimeWindow } from '../support/clients/index.js';
import { addMember, createAccount, type TestAccount } from '../support/identity.js';

const BERLIN_DAILY: PutRotationBody = {
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

  const rosters = () => api(t).as(owner).rosters(projectId);
  const rotation = (rosterId: string) => api(t).as(owner).rotation(projectId, rosterId);
  const overrides = (rosterId: string) => api(t).as(owner).overrides(projectId, rosterId);

  /** A roster with `members` in that order and, when given, a rotation. */
  const roster = async (name: string, members: TestAccount[], schedule?: PutRotationBody) => {
    const id = (await rosters().create({ name })).id;
    for (const m of members)
      await api(t).as(owner).rosterMembers(projectId, id).add({ account_id: m.accountId });
    if (schedule) await rotation(id).put(schedule);
    return id;
  };
  const override = async (rosterId: string, account: TestAccount, from: string, to: string) =>
    overrides(rosterId).create({ account_id: account.accountId, starts_at: from, ends_at: to });
  const shifts = async (rosterId: string, from: string, to: string) =>
    (await rosters().shifts(rosterId, { from, to })).map((s) => [
      s.name,
      s.starts_at,
      s.ends_at,
      s.source,
    ]);

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
      const { show, put, raw } = rotation(id);
      expectError(await raw.show(), 404, 'not_found');
      const created = await put(BERLIN_DAILY);
      const createdAt = t.clock.now().toISOString();
      expect(created).toEqual({
        roster_id: id,
        ...BERLIN_DAILY,
        shift_hours: null,
        created_at: createdAt,
        updated_at: createdAt,
      });
      expect(await show()).toEqual(created);

      t.clock.advance({ seconds: 10 });
      const replaced = await put({
        time_zone: 'America/New_York',
        start_date: '2025-11-01',
        handoff_time: '18:30',
        shift_length: 'hours',
        shift_hours: 12,
      });
      expect(replaced).toEqual({
        roster_id: id,
        time_zone: 'America/New_York',
        start_date: '2025-11-01',
        handoff_time: '18:30',
        shift_length: 'hours',
        shift_hours: 12,
        created_at: createdAt,
        updated_at: t.clock.now().toISOString(),
      });
      await rotation(id).delete();
      expectError(await raw.show(), 404, 'not_found');
      expectError(await raw.delete(), 404, 'not_found');
      expect((await rosters().show(id)).rotation).toBeNull();
    });

    it('validates every field and keeps the rotation as it was', async () => {
      const id = await roster('Strict', [], BERLIN_DAILY);
      const { show, put, raw } = rotation(id);
      const before = await show();
      const invalid: Array<[Loose<PutRotationBody>, string]> = [
        [{ time_zone: 'Mars/Olympus_Mons' }, 'time_zone'],
        [{ time_zone: '+02:00' }, 'time_zone'],
        [{ time_zone: null }, 'time_zone'],
        [{ start_date: '2030-02-30' }, 'start_date'],
        [{ start_date: '28.03.2025' }, 'start_date'],
        [{ start_date: '2025-03-28T09:00:00Z' }, 'start_date'],
        [{ handoff_time: '24:00' }, 'handoff_time'],
        [{ handoff_time: '9:00' }, 'handoff_time'],
        [{ handoff_time: '09:60' }, 'handoff_time'],
        [{ shift_length: 'monthly' }, 'shift_length'],
        [{ shift_length: 'hours' }, 'shift_hours'],
        [{ shift_length: 'hours', shift_hours: 0 }, 'shift_hours'],
        [{ shift_length: 'hours', shift_hours: 745 }, 'shift_hours'],
        [{ shift_length: 'hours', shift_hours: 1.5 }, 'shift_hours'],
        [{ shift_hours: 24 }, 'shift_hours'],
      ];
      for (const [change, field] of invalid)
        expectError(await raw.put({ ...BERLIN_DAILY, ...change }), 422, 'validation_failed', [
          field,
        ]);
      expectError(await raw.put({}), 422, 'validation_failed', [
        'time_zone',
        'start_date',
        'handoff_time',
        'shift_length',
      ]);
      expect(await show()).toEqual(before);
      await put({ ...BERLIN_DAILY, shift_length: 'hours', shift_hours: 744 });
      const cased = await put({ ...BERLIN_DAILY, time_zone: 'europe/berlin' });
      expect(cased.time_zone).toBe('Europe/Berlin');
      const alias = await put({ ...BERLIN_DAILY, time_zone: 'US/Eastern' });
      expect(alias.time_zone).toBe('US/Eastern');
      await put({ ...BERLIN_DAILY, shift_length: 'weekly', shift_hours: null });
    });
  });

  describe('overrides', () => {
    it('creates, lists by starts_at with an optional window, shows and deletes', async () => {
      const id = await roster('Overridden', [ann]);
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
      const { list, show, raw } = overrides(id);
      const ids = async (window: TimeWindow = {}) => (await list(window)).map((o) => o.id);
      expect(await ids()).toEqual([earlier.id, later.id]);
      expect(await ids({ from: '2030-01-05T00:00:00Z' })).toEqual([later.id]);
      expect(await ids({ to: '2030-01-05T00:00:00Z' })).toEqual([earlier.id]);
      // Overlap, not containment: ends exactly at `from` is out, starts before `to` is in.
      expect(await ids({ from: '2030-01-11T00:00:00Z' })).toEqual([]);
      expect(await ids({ from: '2030-01-01T00:00:00Z', to: '2030-01-10T00:00:01Z' })).toEqual([
        earlier.id,
        later.id,
      ]);
      expectError(await raw.list({ from: 'yesterday' }), 422, 'validation_failed', ['from']);
      expectError(
        await raw.list({ from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' }),
        422,
        'validation_failed',
        ['to'],
      );

      expect(await show(later.id)).toEqual(later);
      await overrides(id).delete(later.id);
      expectError(await raw.show(later.id), 404, 'not_found');
      expectError(await raw.delete(later.id), 404, 'not_found');
      expect(await ids()).toEqual([earlier.id]);
    });

    it('needs an organization member and ends_at after starts_at, writing nothing otherwise', async () => {
      const id = await roster('Override rules', []);
      const { list, raw } = overrides(id);
      const body = {
        account_id: ann.accountId,
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-02T00:00:00Z',
      };
      expectError(
        await raw.create({ ...body, account_id: stranger.accountId }),
        422,
        'validation_failed',
        ['account_id'],
      );
      expectError(
        await raw.create({ ...body, ends_at: body.starts_at }),
        422,
        'validation_failed',
        ['ends_at'],
      );
      expectError(
        await raw.create({
          ...body,
          account_id: stranger.accountId,
          ends_at: '2029-12-31T00:00:00Z',
        }),
        422,
        'validation_failed',
        ['account_id', 'ends_at'],
      );
      expectError(
        await raw.create({ ...body, starts_at: '2030-01-01T00:00:00' }),
        422,
        'validation_failed',
        ['starts_at'],
      );
      expectError(
        await raw.create({ ...body, starts_at: '2030-02-30T00:00:00Z' }),
        422,
        'validation_failed',
        ['starts_at'],
      );
      expectError(await raw.create({}), 422, 'validation_failed', [
        'account_id',
        'starts_at',
        'ends_at',
      ]);
      expect(await list()).toEqual([]);
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
      const cut = await rosters().shifts(id, {
        from: '2025-03-29T08:00:00Z',
        to: '2025-03-30T07:00:00Z',
      });
      expect(cut).toEqual([
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
      const { raw } = rosters();
      const invalid: Array<[TimeWindow, string[]]> = [
        [{}, ['from', 'to']],
        [{ from: '2025-04-01T00:00:00Z' }, ['to']],
        [{ from: '2025-04-01', to: '2025-04-02T00:00:00Z' }, ['from']],
        [{ from: '2025-04-02T00:00:00Z', to: '2025-04-01T00:00:00Z' }, ['to']],
        [{ from: '2025-04-01T00:00:00Z', to: '2025-04-01T00:00:00Z' }, ['to']],
        [{ from: '2025-04-01T00:00:00Z', to: '2025-06-30T00:00:01Z' }, ['to']],
      ];
      for (const [window, fields] of invalid)
        expectError(await raw.shifts(id, window), 422, 'validation_failed', fields);
      const longest = await rosters().shifts(id, {
        from: '2025-04-01T00:00:00Z',
        to: '2025-06-30T00:00:00Z',
      });
      expect(longest).toHaveLength(91);
      // Nobody before the first handoff.
      expect(await shifts(id, '2025-01-01T00:00:00Z', '2025-03-28T08:00:00Z')).toEqual([]);
    });
  });
});
