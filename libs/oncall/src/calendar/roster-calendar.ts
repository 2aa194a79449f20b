import ical from 'ical-generator';
import type { ShiftSegment } from '../rosters/rotation-schedule.js';

/** How far ahead a feed shows shifts. */
export const CALENDAR_FEED_DAYS = 90;
/** How often calendar apps are asked to fetch the feed again. */
export const CALENDAR_FEED_TTL_SECONDS = 3600;

export interface CalendarShift {
  segment: ShiftSegment;
  /** The account's name; null when the account is gone. */
  name: string | null;
}

/**
 * A stable UID per shift: the roster, what the shift is a piece of (a rotation turn or an
 * override) and when the piece starts, so each fetch names the same shift the same way and
 * calendar apps update it in place rather than duplicating it.
 */
export function shiftUid(rosterId: string, segment: ShiftSegment): string {
  return `${rosterId}.${segment.key.replace(':', '-')}.${segment.startsAt.getTime()}@on-call`;
}

/**
 * The iCalendar (RFC 5545) document of a roster's shifts: one VEVENT per shift with the
 * member in SUMMARY, DTSTART and DTEND in UTC, DTSTAMP the time of generation.
 */
export function rosterCalendar(input: {
  rosterId: string;
  rosterName: string;
  shifts: readonly CalendarShift[];
  now: Date;
}): string {
  const calendar = ical({
    name: `On call: ${input.rosterName}`,
    prodId: { company: 'platform', product: 'on-call', language: 'EN' },
    ttl: CALENDAR_FEED_TTL_SECONDS,
  });
  for (const { segment, name } of input.shifts) {
    const who = name ?? 'a former member';
    calendar.createEvent({
      id: shiftUid(input.rosterId, segment),
      start: segment.startsAt,
      end: segment.endsAt,
      stamp: input.now,
      summary: `On call: ${who}`,
      description: `${who} is on call for ${input.rosterName} (${segment.source === 'override' ? 'override' : 'rotation'})`,
    });
  }
  return calendar.toString();
}
