import { EscalationErrorCode, EscalationException } from '../escalation-exception.js';

export const INSIGHTS_DAYS = [7, 30, 90] as const;
export type InsightsDays = (typeof INSIGHTS_DAYS)[number];
export const DEFAULT_INSIGHTS_DAYS: InsightsDays = 7;

/**
 * The `days` query parameter: absent means 7; otherwise exactly "7", "30" or "90" (a repeated
 * parameter counts by its first value, as on the alert list). Anything else is 422
 * `invalid_days`, never a silent default.
 */
export function parseInsightsDays(value: unknown): InsightsDays {
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (first === undefined) return DEFAULT_INSIGHTS_DAYS;
  const days = INSIGHTS_DAYS.find((d) => String(d) === first);
  if (days === undefined)
    throw new EscalationException(
      EscalationErrorCode.InvalidDays,
      `days must be one of ${INSIGHTS_DAYS.join(', ')}`,
      { details: { fields: [{ field: 'days', messages: ['days must be 7, 30 or 90'] }] } },
    );
  return days;
}

/** Rounds a share to four decimals; 0 when there is nothing to divide. */
export function share(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 10_000;
}

const DAY_MS = 86_400_000;

/**
 * The window of `days` days before `now`: it starts `days` x 24 h before now, and its whole UTC
 * days begin at the first midnight after that start.
 */
export function insightsWindow(now: Date, days: InsightsDays): { since: Date; fullDaysFrom: Date } {
  const since = now.getTime() - days * DAY_MS;
  return {
    since: new Date(since),
    fullDaysFrom: new Date((Math.floor(since / DAY_MS) + 1) * DAY_MS),
  };
}
