import railsTimezone from 'rails-timezone';

/** A wall-clock reading in one time zone. */
export interface LocalTime {
  /** YYYY-MM-DD */
  date: string;
  /** 0..23 */
  hour: number;
  /** 0..59 */
  minute: number;
}

export interface HourMinute {
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws a RangeError for a zone Intl does not know; only valid zones are cached. */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function intlTimeZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * Resolves a Rails ActiveSupport zone name ("Berlin", "Eastern Time (US & Canada)") or an
 * IANA name ("Europe/Berlin") to an IANA name; null when neither knows it.
 *
 * Rails names are matched exactly. An IANA name is returned as given, except that its
 * letter case is corrected ("europe/berlin" → "Europe/Berlin"); Intl's own canonical form
 * is not used because it prefers legacy aliases (it turns "Asia/Kolkata" into "Asia/Calcutta").
 */
export function resolveTimeZone(name: string): string | null {
  if (typeof name !== 'string' || name.length === 0) return null;
  // The mapping is a plain object: guard against inherited keys such as "toString".
  const rails: unknown = railsTimezone.from(name);
  if (typeof rails === 'string' && intlTimeZone(rails) !== null) return rails;
  const resolved = intlTimeZone(name);
  if (resolved === null) return null;
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

/** The local date, hour and minute of an instant in a time zone (IANA name). */
export function localTime(at: Date, timeZone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(at)) parts[part.type] = part.value;
  return {
    date: `${parts.year.padStart(4, '0')}-${parts.month}-${parts.day}`,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
  };
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Strict 24-hour "HH:MM" (two digits each, hour < 24, minute < 60); null otherwise. */
export function parseHHMM(value: string): HourMinute | null {
  const match = typeof value === 'string' ? HHMM.exec(value) : null;
  if (!match) return null;
  return { hour: Number(match[1]), minute: Number(match[2]) };
}

/**
 * Whether an instant lies in the quiet window [quietStart, quietEnd) of local wall-clock
 * time in the zone. The window may wrap midnight (22:00–07:00). A missing bound, equal
 * bounds or an unparseable bound mean no quiet window.
 */
export function inQuietHours(
  at: Date,
  quietStart: string | null,
  quietEnd: string | null,
  timeZone: string,
): boolean {
  if (quietStart === null || quietEnd === null) return false;
  const start = parseHHMM(quietStart);
  const end = parseHHMM(quietEnd);
  if (!start || !end) return false;
  const startMinute = start.hour * 60 + start.minute;
  const endMinute = end.hour * 60 + end.minute;
  if (startMinute === endMinute) return false;
  const local = localTime(at, timeZone);
  const minute = local.hour * 60 + local.minute;
  return startMinute < endMinute
    ? minute >= startMinute && minute < endMinute
    : minute >= startMinute || minute < endMinute;
}
