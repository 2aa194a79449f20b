import { describe, expect, it } from '@jest/globals';
import ical, { type VEvent } from 'node-ical';
import type { ShiftSegment } from '../rosters/rotation-schedule.js';
import { rosterCalendar, shiftUid } from './roster-calendar.js';

const ROSTER = '0b6f3c52-8d0e-4d38-a3e2-6f1d0c9b7a11';
const segment = (
  key: string,
  accountId: string,
  startsAt: string,
  endsAt: string,
  source: ShiftSegment['source'] = 'rotation',
): ShiftSegment => ({
  key,
  accountId,
  startsAt: new Date(startsAt),
  endsAt: new Date(endsAt),
  source,
});

describe('roster calendar', () => {
  const shifts = [
    {
      segment: segment('rotation:4', 'a', '2026-05-04T07:00:00Z', '2026-05-05T07:00:00Z'),
      name: 'Alice; "Ops", Lead',
    },
    {
      segment: segment(
        'override:9f1',
        'b',
        '2026-05-05T07:00:00Z',
        '2026-05-05T19:30:00Z',
        'override',
      ),
      name: 'Bob',
    },
    {
      segment: segment('rotation:5', 'c', '2026-05-05T19:30:00Z', '2026-05-06T07:00:00Z'),
      name: null,
    },
  ];
  const text = rosterCalendar({
    rosterId: ROSTER,
    rosterName: 'Primary',
    shifts,
    now: new Date('2026-05-04T10:00:00Z'),
  });

  it('parses back as one VEVENT per shift, the member in SUMMARY, times in UTC', () => {
    const events = Object.values(ical.sync.parseICS(text)).filter(
      (component): component is VEvent => component?.type === 'VEVENT',
    );
    expect(
      events.map((event) => [
        event.uid,
        event.summary,
        event.start.toISOString(),
        event.end!.toISOString(),
      ]),
    ).toEqual([
      [
        shiftUid(ROSTER, shifts[0].segment),
        'On call: Alice; "Ops", Lead',
        '2026-05-04T07:00:00.000Z',
        '2026-05-05T07:00:00.000Z',
      ],
      [
        shiftUid(ROSTER, shifts[1].segment),
        'On call: Bob',
        '2026-05-05T07:00:00.000Z',
        '2026-05-05T19:30:00.000Z',
      ],
      [
        shiftUid(ROSTER, shifts[2].segment),
        'On call: a former member',
        '2026-05-05T19:30:00.000Z',
        '2026-05-06T07:00:00.000Z',
      ],
    ]);
    expect(events[1].description).toBe('Bob is on call for Primary (override)');
  });

  it('writes DTSTART and DTEND as UTC date-times, and names the calendar', () => {
    expect(text).toContain('DTSTART:20260504T070000Z');
    expect(text).toContain('DTEND:20260505T070000Z');
    expect(text).toContain('DTSTAMP:20260504T100000Z');
    expect(text).toContain('X-WR-CALNAME:On call: Primary');
    expect(text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
  });

  it('gives a shift the same UID whenever it is generated', () => {
    expect(shiftUid(ROSTER, shifts[0].segment)).toBe(
      `${ROSTER}.rotation-4.${Date.parse('2026-05-04T07:00:00Z')}@on-call`,
    );
    const again = rosterCalendar({
      rosterId: ROSTER,
      rosterName: 'Primary',
      shifts,
      now: new Date('2026-05-04T11:00:00Z'),
    });
    const uids = (value: string) => value.split('\r\n').filter((line) => line.startsWith('UID:'));
    expect(uids(again)).toEqual(uids(text));
  });
});
