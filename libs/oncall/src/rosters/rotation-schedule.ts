import { IANAZone } from 'luxon';

export const SHIFT_LENGTHS = ['daily', 'weekly', 'hours'] as const;
export type ShiftLength = (typeof SHIFT_LENGTHS)[number];

/** A roster's rotation as stored: when shifts hand over, in the rotation's own time zone. */
export interface Rotation {
  /** IANA time zone name. */
  timeZone: string;
  /** YYYY-MM-DD: the local date of the first handoff. */
  startDate: string;
  /** HH:MM (24h): the local wall-clock time of every daily and weekly handoff. */
  handoffTime: string;
  shiftLength: ShiftLength;
  /** Elapsed hours of one shift; only for `hours`. */
  shiftHours: number | null;
}

/** An override as the schedule needs it; the latest created wins where overrides overlap. */
export interface ScheduledOverride {
  id: string;
  accountId: string;
  startsAt: Date;
  endsAt: Date;
  createdAt: Date;
}

export interface ShiftSegment {
  /**
   * What the segment is a piece of: `rotation:<shift index>` or `override:<override id>`; the
   * pieces of one shift an override cuts in two share it.
   */
  key: string;
  accountId: string;
  startsAt: Date;
  endsAt: Date;
  source: 'rotation' | 'override';
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * The instant a local wall-clock time names in `zone`. Disambiguation follows the usual
 * "compatible" rule (as JavaScript and most calendars do): a time the clocks skip at spring
 * forward is taken that much later (02:30 becomes 03:30), a time that happens twice at fall
 * back is taken at its first occurrence.
 */
export function localInstant(
  zone: string,
  date: { year: number; month: number; day: number },
  hour: number,
  minute: number,
): number {
  const tz = IANAZone.create(zone);
  const wall = Date.UTC(date.year, date.month - 1, date.day, hour, minute);
  // Offsets a day either side: transitions are rarer than that, so the two cover every case.
  const before = tz.offset(wall - DAY_MS);
  const after = tz.offset(wall + DAY_MS);
  const valid = [...new Set([before, after])]
    .map((offset) => wall - offset * MINUTE_MS)
    .filter((instant) => tz.offset(instant) * MINUTE_MS === wall - instant);
  return valid.length > 0 ? Math.min(...valid) : wall - before * MINUTE_MS;
}

function parseDate(value: string): { year: number; month: number; day: number } {
  const [year, month, day] = value.split('-').map(Number);
  return { year, month, day };
}

function parseTime(value: string): { hour: number; minute: number } {
  const [hour, minute] = value.split(':').map(Number);
  return { hour, minute };
}

/** The local calendar date `days` after `date` (calendar arithmetic, no time zone involved). */
function addDays(date: { year: number; month: number; day: number }, days: number) {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
  };
}

/** The nominal length of a shift, exact for `hours`, off by the DST change otherwise. */
function nominalLength(rotation: Rotation): number {
  if (rotation.shiftLength === 'daily') return DAY_MS;
  if (rotation.shiftLength === 'weekly') return 7 * DAY_MS;
  return rotation.shiftHours! * HOUR_MS;
}

/**
 * When shift `k` (0 = the first) starts, in epoch ms. Daily and weekly handoffs keep the local
 * wall-clock time across DST changes (a shift over the change lasts 23 or 25 hours; weekly,
 * 167 or 169); `hours` shifts are exact elapsed hours from the first handoff.
 */
export function handoffAt(rotation: Rotation, k: number): number {
  const start = parseDate(rotation.startDate);
  const { hour, minute } = parseTime(rotation.handoffTime);
  if (rotation.shiftLength === 'hours') {
    return localInstant(rotation.timeZone, start, hour, minute) + k * nominalLength(rotation);
  }
  const days = rotation.shiftLength === 'daily' ? k : 7 * k;
  return localInstant(rotation.timeZone, addDays(start, days), hour, minute);
}

/** The shift running at `at` (handoff(k) <= at < handoff(k+1)); null before the first handoff. */
export function shiftIndexAt(rotation: Rotation, at: Date | number): number | null {
  const instant = typeof at === 'number' ? at : at.getTime();
  const first = handoffAt(rotation, 0);
  if (instant < first) return null;
  let k = Math.floor((instant - first) / nominalLength(rotation));
  while (k > 0 && handoffAt(rotation, k) > instant) k -= 1;
  while (handoffAt(rotation, k + 1) <= instant) k += 1;
  return k;
}

/** Member `i` (by position) takes shift `k` where i = k mod member count. */
export function memberIndexOf(shiftIndex: number, memberCount: number): number {
  return shiftIndex % memberCount;
}

/** The index of the member the rotation schedules at `at`; null when nobody is scheduled. */
export function scheduledMemberIndex(
  rotation: Rotation | null,
  memberCount: number,
  at: Date,
): number | null {
  if (rotation === null || memberCount === 0) return null;
  const k = shiftIndexAt(rotation, at);
  return k === null ? null : memberIndexOf(k, memberCount);
}

/** Rotation shifts overlapping [from, to), unclipped, in order. */
export function rotationShifts(
  rotation: Rotation,
  from: number,
  to: number,
): Array<{ index: number; startsAt: number; endsAt: number }> {
  const shifts: Array<{ index: number; startsAt: number; endsAt: number }> = [];
  let k = shiftIndexAt(rotation, from) ?? 0;
  let startsAt = handoffAt(rotation, k);
  while (startsAt < to) {
    const endsAt = handoffAt(rotation, k + 1);
    shifts.push({ index: k, startsAt, endsAt });
    k += 1;
    startsAt = endsAt;
  }
  return shifts;
}

interface Owner {
  key: string;
  accountId: string;
  source: ShiftSegment['source'];
}

/**
 * Who is on call when between `from` and `to`, clipped to that window: rotation shifts of
 * `members` (account ids in rotation order) with overrides cutting into them. Where overrides
 * overlap, the latest created one wins (ties: the greater id). Times nobody covers (before the
 * first handoff, no rotation, no members) are left out. A rotation shift split by an override
 * shows as two segments; consecutive pieces of the same shift or override stay one segment.
 */
export function computeShifts(input: {
  rotation: Rotation | null;
  members: readonly string[];
  overrides: readonly ScheduledOverride[];
  from: Date;
  to: Date;
}): ShiftSegment[] {
  const from = input.from.getTime();
  const to = input.to.getTime();
  if (to <= from) return [];
  const shifts =
    input.rotation && input.members.length > 0 ? rotationShifts(input.rotation, from, to) : [];
  const overrides = input.overrides
    .filter((o) => o.endsAt.getTime() > from && o.startsAt.getTime() < to)
    .sort(
      (a, b) =>
        b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
    );

  const edges = new Set<number>([from, to]);
  const inside = (t: number) => t > from && t < to;
  for (const s of shifts) for (const t of [s.startsAt, s.endsAt]) if (inside(t)) edges.add(t);
  for (const o of overrides)
    for (const t of [o.startsAt.getTime(), o.endsAt.getTime()]) if (inside(t)) edges.add(t);
  const points = [...edges].sort((a, b) => a - b);

  const segments: ShiftSegment[] = [];
  let shiftCursor = 0;
  for (let i = 0; i < points.length - 1; i += 1) {
    const [start, end] = [points[i], points[i + 1]];
    while (shiftCursor < shifts.length && shifts[shiftCursor].endsAt <= start) shiftCursor += 1;
    const owner = ownerAt(start, overrides, shifts[shiftCursor], input.members);
    if (owner === null) continue;
    const last = segments[segments.length - 1];
    if (last && last.key === owner.key && last.endsAt.getTime() === start) {
      last.endsAt = new Date(end);
      continue;
    }
    segments.push({
      key: owner.key,
      accountId: owner.accountId,
      startsAt: new Date(start),
      endsAt: new Date(end),
      source: owner.source,
    });
  }
  return segments;
}

/** Whoever covers the elementary interval starting at `at` (no edge falls inside it). */
function ownerAt(
  at: number,
  overridesByRecency: readonly ScheduledOverride[],
  shift: { index: number; startsAt: number; endsAt: number } | undefined,
  members: readonly string[],
): Owner | null {
  const override = overridesByRecency.find(
    (o) => o.startsAt.getTime() <= at && o.endsAt.getTime() > at,
  );
  if (override)
    return { key: `override:${override.id}`, accountId: override.accountId, source: 'override' };
  if (shift && shift.startsAt <= at && shift.endsAt > at)
    return {
      key: `rotation:${shift.index}`,
      accountId: members[memberIndexOf(shift.index, members.length)],
      source: 'rotation',
    };
  return null;
}
