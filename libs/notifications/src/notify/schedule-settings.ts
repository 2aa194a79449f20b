import { DEFAULT_SCHEDULE, type ScheduleSettings } from '../delivery/decide.js';
import { resolveTimeZone } from '../delivery/time-zone.js';
import type { NotificationSchedule } from '../entities.js';

/** The decision's view of a stored schedule; no stored row means the defaults. */
export function scheduleSettings(
  stored: NotificationSchedule | null | undefined,
): ScheduleSettings {
  if (!stored) return DEFAULT_SCHEDULE;
  return {
    emailMode: stored.emailMode,
    quietStart: stored.quietStart,
    quietEnd: stored.quietEnd,
    timeZone: resolveTimeZone(stored.timezone) ?? DEFAULT_SCHEDULE.timeZone,
    digestHour: stored.digestHour,
  };
}
