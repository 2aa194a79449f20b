import { describe, expect, it } from '@jest/globals';
import {
  computeShifts,
  handoffAt,
  localInstant,
  memberIndexOf,
  type Rotation,
  rotationShifts,
  type ScheduledOverride,
  scheduledMemberIndex,
  shiftIndexAt,
} from './rotation-schedule.js';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (value: string) => new Date(value);
const HOUR = 3_600_000;

function rotation(overrides: Partial<Rotation>): Rotation {
  return {
    timeZone: 'Europe/Berlin',
    startDate: '2025-03-28',
    handoffTime: '09:00',
    shiftLength: 'daily',
    shiftHours: null,
    ...overrides,
  };
}

const handoffs = (r: Rotation, count: number) =>
  Array.from({ length: count }, (_, k) => iso(handoffAt(r, k)));

function override(
  id: string,
  accountId: string,
  startsAt: string,
  endsAt: string,
  createdAt = '2025-01-01T00:00:00Z',
): ScheduledOverride {
  return { id, accountId, startsAt: at(startsAt), endsAt: at(endsAt), createdAt: at(createdAt) };
}

const show = (segments: ReturnType<typeof computeShifts>) =>
  segments.map((s) => [s.accountId, iso(s.startsAt.getTime()), iso(s.endsAt.getTime()), s.source]);

describe('localInstant', () => {
  it('converts an ordinary wall-clock time with the offset of that day', () => {
    const winter = localInstant('Europe/Berlin', { year: 2025, month: 1, day: 15 }, 9, 0);
    const summer = localInstant('Europe/Berlin', { year: 2025, month: 7, day: 15 }, 9, 0);
    expect(iso(winter)).toBe('2025-01-15T08:00:00.000Z');
    expect(iso(summer)).toBe('2025-07-15T07:00:00.000Z');
  });

  it('moves a time skipped at spring forward later by the gap', () => {
    expect(iso(localInstant('Europe/Berlin', { year: 2025, month: 3, day: 30 }, 2, 30))).toBe(
      '2025-03-30T01:30:00.000Z',
    );
    expect(iso(localInstant('America/New_York', { year: 2025, month: 3, day: 9 }, 2, 0))).toBe(
      '2025-03-09T07:00:00.000Z',
    );
  });

  it('takes the first occurrence of a time repeated at fall back', () => {
    expect(iso(localInstant('Europe/Berlin', { year: 2025, month: 10, day: 26 }, 2, 30))).toBe(
      '2025-10-26T00:30:00.000Z',
    );
    expect(iso(localInstant('America/New_York', { year: 2025, month: 11, day: 2 }, 1, 30))).toBe(
      '2025-11-02T05:30:00.000Z',
    );
  });

  it('handles zones without DST and UTC', () => {
    expect(iso(localInstant('Asia/Kolkata', { year: 2025, month: 3, day: 30 }, 9, 0))).toBe(
      '2025-03-30T03:30:00.000Z',
    );
    expect(iso(localInstant('UTC', { year: 2025, month: 3, day: 30 }, 0, 0))).toBe(
      '2025-03-30T00:00:00.000Z',
    );
  });
});

describe('handoffAt', () => {
  it('keeps daily handoffs at the local time across spring forward in Europe/Berlin', () => {
    expect(handoffs(rotation({}), 4)).toEqual([
      '2025-03-28T08:00:00.000Z',
      '2025-03-29T08:00:00.000Z',
      '2025-03-30T07:00:00.000Z',
      '2025-03-31T07:00:00.000Z',
    ]);
  });

  it('keeps daily handoffs at the local time across fall back in Europe/Berlin', () => {
    const r = rotation({ startDate: '2025-10-25' });
    expect(handoffs(r, 3)).toEqual([
      '2025-10-25T07:00:00.000Z',
      '2025-10-26T08:00:00.000Z',
      '2025-10-27T08:00:00.000Z',
    ]);
    expect(handoffAt(r, 1) - handoffAt(r, 0)).toBe(25 * HOUR);
  });

  it('places a handoff inside the spring-forward gap an hour later only on that day', () => {
    const r = rotation({ startDate: '2025-03-29', handoffTime: '02:30' });
    expect(handoffs(r, 3)).toEqual([
      '2025-03-29T01:30:00.000Z',
      '2025-03-30T01:30:00.000Z',
      '2025-03-31T00:30:00.000Z',
    ]);
  });

  it('places a repeated fall-back handoff at its first occurrence', () => {
    const r = rotation({ startDate: '2025-10-25', handoffTime: '02:30' });
    expect(handoffs(r, 3)).toEqual([
      '2025-10-25T00:30:00.000Z',
      '2025-10-26T00:30:00.000Z',
      '2025-10-27T01:30:00.000Z',
    ]);
  });

  it('keeps weekly handoffs at the local time across both changes in America/New_York', () => {
    const spring = rotation({
      timeZone: 'America/New_York',
      startDate: '2025-03-03',
      handoffTime: '10:00',
      shiftLength: 'weekly',
    });
    expect(handoffs(spring, 3)).toEqual([
      '2025-03-03T15:00:00.000Z',
      '2025-03-10T14:00:00.000Z',
      '2025-03-17T14:00:00.000Z',
    ]);
    expect(handoffAt(spring, 1) - handoffAt(spring, 0)).toBe(167 * HOUR);

    const fall = { ...spring, startDate: '2025-10-27' };
    expect(handoffs(fall, 2)).toEqual(['2025-10-27T14:00:00.000Z', '2025-11-03T15:00:00.000Z']);
    expect(handoffAt(fall, 1) - handoffAt(fall, 0)).toBe(169 * HOUR);
  });

  it('counts N-hour shifts as elapsed hours from the first handoff, whatever the clocks do', () => {
    const r = rotation({
      timeZone: 'America/New_York',
      startDate: '2025-03-08',
      handoffTime: '20:00',
      shiftLength: 'hours',
      shiftHours: 12,
    });
    expect(handoffs(r, 4)).toEqual([
      '2025-03-09T01:00:00.000Z',
      '2025-03-09T13:00:00.000Z',
      '2025-03-10T01:00:00.000Z',
      '2025-03-10T13:00:00.000Z',
    ]);
    const berlin = rotation({ startDate: '2025-10-25', shiftLength: 'hours', shiftHours: 36 });
    expect(handoffs(berlin, 3)).toEqual([
      '2025-10-25T07:00:00.000Z',
      '2025-10-26T19:00:00.000Z',
      '2025-10-28T07:00:00.000Z',
    ]);
  });

  it('supports the longest shift of 744 hours', () => {
    const r = rotation({ shiftLength: 'hours', shiftHours: 744 });
    expect(handoffAt(r, 1) - handoffAt(r, 0)).toBe(744 * HOUR);
  });
});

describe('shiftIndexAt', () => {
  const daily = rotation({});

  it('is null before the first handoff and 0 from it', () => {
    expect(shiftIndexAt(daily, at('2025-03-28T07:59:59.999Z'))).toBeNull();
    expect(shiftIndexAt(daily, at('2025-03-28T08:00:00Z'))).toBe(0);
    expect(shiftIndexAt(daily, at('2025-03-29T07:59:59.999Z'))).toBe(0);
  });

  it('changes exactly at each handoff, across the DST change', () => {
    expect(shiftIndexAt(daily, at('2025-03-29T08:00:00Z'))).toBe(1);
    // Mar 30 08:00Z is 10:00 CEST, after that day's 09:00 handoff (07:00Z).
    expect(shiftIndexAt(daily, at('2025-03-30T06:59:59.999Z'))).toBe(1);
    expect(shiftIndexAt(daily, at('2025-03-30T07:00:00Z'))).toBe(2);
    expect(shiftIndexAt(daily, at('2025-03-30T08:00:00Z'))).toBe(2);
  });

  it('finds far-away shifts without walking from the start', () => {
    const old = rotation({ startDate: '2020-01-01' });
    expect(shiftIndexAt(old, at('2030-07-01T07:00:00Z'))).toBe(3834);
    expect(shiftIndexAt(old, at('2030-07-01T06:59:59.999Z'))).toBe(3833);
    const weekly = { ...old, shiftLength: 'weekly' as const };
    expect(shiftIndexAt(weekly, at('2030-07-01T07:00:00Z'))).toBe(Math.floor(3834 / 7));
    const hours = { ...old, shiftLength: 'hours' as const, shiftHours: 5 };
    const first = handoffAt(hours, 0);
    expect(shiftIndexAt(hours, first + 5 * HOUR * 1000)).toBe(1000);
    expect(shiftIndexAt(hours, first + 5 * HOUR * 1000 - 1)).toBe(999);
  });

  it('agrees with handoffAt for every hour of a year with weekly shifts', () => {
    const weekly = rotation({
      timeZone: 'America/New_York',
      startDate: '2025-01-06',
      shiftLength: 'weekly',
    });
    const start = handoffAt(weekly, 0);
    for (let t = start; t < start + 365 * 24 * HOUR; t += HOUR) {
      const k = shiftIndexAt(weekly, t)!;
      expect(handoffAt(weekly, k) <= t && t < handoffAt(weekly, k + 1)).toBe(true);
    }
  });
});

describe('members and scheduling', () => {
  it('gives shift k to member k mod count', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((k) => memberIndexOf(k, 3))).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });

  it('schedules nobody without a rotation, without members or before the first handoff', () => {
    const r = rotation({});
    expect(scheduledMemberIndex(null, 3, at('2025-04-01T00:00:00Z'))).toBeNull();
    expect(scheduledMemberIndex(r, 0, at('2025-04-01T00:00:00Z'))).toBeNull();
    expect(scheduledMemberIndex(r, 3, at('2025-03-27T00:00:00Z'))).toBeNull();
    // Shift 4 (Apr 1 09:00 Berlin) goes to member 1 of 3.
    expect(scheduledMemberIndex(r, 3, at('2025-04-01T07:00:00Z'))).toBe(1);
  });

  it('lists the shifts overlapping a window, unclipped', () => {
    const shifts = rotationShifts(
      rotation({}),
      Date.parse('2025-03-29T12:00:00Z'),
      Date.parse('2025-03-30T07:00:00Z'),
    );
    expect(shifts.map((s) => [s.index, iso(s.startsAt), iso(s.endsAt)])).toEqual([
      [1, '2025-03-29T08:00:00.000Z', '2025-03-30T07:00:00.000Z'],
    ]);
  });
});

describe('computeShifts', () => {
  const members = ['ann', 'bob', 'cid'];

  it('clips rotation shifts to the window and hands over at 09:00 local across the change', () => {
    const shifts = computeShifts({
      rotation: rotation({}),
      members,
      overrides: [],
      from: at('2025-03-29T00:00:00Z'),
      to: at('2025-04-01T00:00:00Z'),
    });
    expect(show(shifts)).toEqual([
      ['ann', '2025-03-29T00:00:00.000Z', '2025-03-29T08:00:00.000Z', 'rotation'],
      ['bob', '2025-03-29T08:00:00.000Z', '2025-03-30T07:00:00.000Z', 'rotation'],
      ['cid', '2025-03-30T07:00:00.000Z', '2025-03-31T07:00:00.000Z', 'rotation'],
      ['ann', '2025-03-31T07:00:00.000Z', '2025-04-01T00:00:00.000Z', 'rotation'],
    ]);
  });

  it('starts at the first handoff when the window begins before it', () => {
    const shifts = computeShifts({
      rotation: rotation({}),
      members: ['ann', 'bob'],
      overrides: [],
      from: at('2025-03-27T00:00:00Z'),
      to: at('2025-03-29T10:00:00Z'),
    });
    expect(show(shifts)).toEqual([
      ['ann', '2025-03-28T08:00:00.000Z', '2025-03-29T08:00:00.000Z', 'rotation'],
      ['bob', '2025-03-29T08:00:00.000Z', '2025-03-29T10:00:00.000Z', 'rotation'],
    ]);
  });

  it('keeps consecutive shifts of a single member apart', () => {
    const shifts = computeShifts({
      rotation: rotation({}),
      members: ['ann'],
      overrides: [],
      from: at('2025-03-29T00:00:00Z'),
      to: at('2025-03-30T12:00:00Z'),
    });
    expect(shifts.map((s) => iso(s.startsAt.getTime()))).toEqual([
      '2025-03-29T00:00:00.000Z',
      '2025-03-29T08:00:00.000Z',
      '2025-03-30T07:00:00.000Z',
    ]);
  });

  it('splits a rotation shift around an override', () => {
    const shifts = computeShifts({
      rotation: rotation({}),
      members,
      overrides: [override('o1', 'zoe', '2025-03-29T12:00:00Z', '2025-03-29T18:00:00Z')],
      from: at('2025-03-29T08:00:00Z'),
      to: at('2025-03-30T07:00:00Z'),
    });
    expect(show(shifts)).toEqual([
      ['bob', '2025-03-29T08:00:00.000Z', '2025-03-29T12:00:00.000Z', 'rotation'],
      ['zoe', '2025-03-29T12:00:00.000Z', '2025-03-29T18:00:00.000Z', 'override'],
      ['bob', '2025-03-29T18:00:00.000Z', '2025-03-30T07:00:00.000Z', 'rotation'],
    ]);
  });

  it('keeps an override across a handoff as one segment and trims both shifts', () => {
    const shifts = computeShifts({
      rotation: rotation({}),
      members,
      overrides: [override('o1', 'ann', '2025-03-30T05:00:00Z', '2025-03-30T09:00:00Z')],
      from: at('2025-03-29T08:00:00Z'),
      to: at('2025-03-31T07:00:00Z'),
    });
    expect(show(shifts)).toEqual([
      ['bob', '2025-03-29T08:00:00.000Z', '2025-03-30T05:00:00.000Z', 'rotation'],
      ['ann', '2025-03-30T05:00:00.000Z', '2025-03-30T09:00:00.000Z', 'override'],
      ['cid', '2025-03-30T09:00:00.000Z', '2025-03-31T07:00:00.000Z', 'rotation'],
    ]);
  });

  it('lets the latest created override win where overrides overlap', () => {
    const shifts = computeShifts({
      rotation: rotation({}),
      members,
      overrides: [
        override(
          'o1',
          'zoe',
          '2025-03-29T10:00:00Z',
          '2025-03-29T20:00:00Z',
          '2025-01-01T00:00:00Z',
        ),
        override(
          'o2',
          'yan',
          '2025-03-29T12:00:00Z',
          '2025-03-29T14:00:00Z',
          '2025-01-02T00:00:00Z',
        ),
        // Older than o1: hidden where o1 covers it, visible after.
        override(
          'o0',
          'xia',
          '2025-03-29T18:00:00Z',
          '2025-03-29T22:00:00Z',
          '2024-12-31T00:00:00Z',
        ),
      ],
      from: at('2025-03-29T08:00:00Z'),
      to: at('2025-03-30T00:00:00Z'),
    });
    expect(show(shifts)).toEqual([
      ['bob', '2025-03-29T08:00:00.000Z', '2025-03-29T10:00:00.000Z', 'rotation'],
      ['zoe', '2025-03-29T10:00:00.000Z', '2025-03-29T12:00:00.000Z', 'override'],
      ['yan', '2025-03-29T12:00:00.000Z', '2025-03-29T14:00:00.000Z', 'override'],
      ['zoe', '2025-03-29T14:00:00.000Z', '2025-03-29T20:00:00.000Z', 'override'],
      ['xia', '2025-03-29T20:00:00.000Z', '2025-03-29T22:00:00.000Z', 'override'],
      ['bob', '2025-03-29T22:00:00.000Z', '2025-03-30T00:00:00.000Z', 'rotation'],
    ]);
  });

  it('clips overrides to the window and ignores those outside it', () => {
    const shifts = computeShifts({
      rotation: null,
      members,
      overrides: [
        override('o1', 'zoe', '2025-03-01T00:00:00Z', '2025-03-29T02:00:00Z'),
        override('o2', 'yan', '2025-03-29T05:00:00Z', '2025-04-29T00:00:00Z'),
        override('o3', 'xia', '2025-02-01T00:00:00Z', '2025-02-02T00:00:00Z'),
        override('o4', 'wes', '2025-03-29T06:00:00Z', '2025-03-29T06:00:00.001Z'),
      ],
      from: at('2025-03-29T00:00:00Z'),
      to: at('2025-03-29T06:00:00Z'),
    });
    expect(show(shifts)).toEqual([
      ['zoe', '2025-03-29T00:00:00.000Z', '2025-03-29T02:00:00.000Z', 'override'],
      ['yan', '2025-03-29T05:00:00.000Z', '2025-03-29T06:00:00.000Z', 'override'],
    ]);
  });

  it('shows overrides alone without members, and nothing for an empty window', () => {
    const overrides = [override('o1', 'zoe', '2025-03-29T10:00:00Z', '2025-03-29T11:00:00Z')];
    const window = { from: at('2025-03-29T00:00:00Z'), to: at('2025-03-30T00:00:00Z') };
    expect(
      show(computeShifts({ rotation: rotation({}), members: [], overrides, ...window })),
    ).toEqual([['zoe', '2025-03-29T10:00:00.000Z', '2025-03-29T11:00:00.000Z', 'override']]);
    expect(
      computeShifts({
        rotation: rotation({}),
        members,
        overrides,
        from: window.to,
        to: window.from,
      }),
    ).toEqual([]);
  });

  it('splits N-hour shifts around an override over the fall-back change in America/New_York', () => {
    const r = rotation({
      timeZone: 'America/New_York',
      startDate: '2025-11-01',
      handoffTime: '18:00',
      shiftLength: 'hours',
      shiftHours: 8,
    });
    // First handoff 22:00Z; then every 8 elapsed hours: 06:00Z, 14:00Z, 22:00Z.
    const shifts = computeShifts({
      rotation: r,
      members: ['ann', 'bob'],
      overrides: [override('o1', 'zoe', '2025-11-02T08:00:00Z', '2025-11-02T09:00:00Z')],
      from: at('2025-11-01T22:00:00Z'),
      to: at('2025-11-02T22:00:00Z'),
    });
    expect(show(shifts)).toEqual([
      ['ann', '2025-11-01T22:00:00.000Z', '2025-11-02T06:00:00.000Z', 'rotation'],
      ['bob', '2025-11-02T06:00:00.000Z', '2025-11-02T08:00:00.000Z', 'rotation'],
      ['zoe', '2025-11-02T08:00:00.000Z', '2025-11-02T09:00:00.000Z', 'override'],
      ['bob', '2025-11-02T09:00:00.000Z', '2025-11-02T14:00:00.000Z', 'rotation'],
      ['ann', '2025-11-02T14:00:00.000Z', '2025-11-02T22:00:00.000Z', 'rotation'],
    ]);
  });

  it('gives a weekly shift over spring forward 167 hours', () => {
    const r = rotation({ startDate: '2025-03-24', shiftLength: 'weekly' });
    const shifts = computeShifts({
      rotation: r,
      members: ['ann', 'bob'],
      overrides: [],
      from: at('2025-03-24T08:00:00Z'),
      to: at('2025-04-07T07:00:00Z'),
    });
    expect(show(shifts)).toEqual([
      ['ann', '2025-03-24T08:00:00.000Z', '2025-03-31T07:00:00.000Z', 'rotation'],
      ['bob', '2025-03-31T07:00:00.000Z', '2025-04-07T07:00:00.000Z', 'rotation'],
    ]);
    expect(shifts[0].endsAt.getTime() - shifts[0].startsAt.getTime()).toBe(167 * HOUR);
  });
});
