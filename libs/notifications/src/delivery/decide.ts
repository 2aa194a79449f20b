import type { PersonChannelName } from '../channels/channel.js';
import { inQuietHours, localTime } from './time-zone.js';

export type Channel = PersonChannelName;
export type EmailMode = 'instant' | 'hourly_digest' | 'daily_digest';

/** Categories whose e-mail always goes out at once: no quiet hours, digests or absences. */
export const MANDATORY_INSTANT_CATEGORIES = [
  'security',
  'platform_incident',
  'alert_escalation',
] as const;

export type MandatoryInstantCategory = (typeof MANDATORY_INSTANT_CATEGORIES)[number];

export interface ScheduleSettings {
  emailMode: EmailMode;
  /** HH:MM, 24h, inclusive; null means never quiet */
  quietStart: string | null;
  /** HH:MM, 24h, exclusive; null means never quiet */
  quietEnd: string | null;
  /** IANA name */
  timeZone: string;
  /** 0..23, local hour of the daily digest */
  digestHour: number;
}

export interface AbsenceWindow {
  startsAt: Date;
  endsAt: Date;
}

export interface DeliveryInput {
  category: { key: string; defaultChannels: Channel[]; mandatoryForAdmins: boolean };
  recipient: { isOrgAdmin: boolean; isPlatformAdmin: boolean; phoneVerified: boolean };
  /** the account's saved preference rows for this category */
  preferences: Partial<Record<Channel, boolean>>;
  schedule: ScheduleSettings;
  absences: AbsenceWindow[];
  now: Date;
}

/** Machine-readable reasons that appear in DeliveryDecision.reasons. */
export type DeliveryReason =
  | 'in_app_disabled'
  | 'mandatory_in_app'
  | 'email_disabled'
  | 'mandatory_instant'
  | 'absent'
  | 'quiet_hours'
  | 'digest'
  | 'phone_not_opted_in'
  | 'sms_not_opted_in'
  | 'phone_not_verified';

export interface DeliveryDecision {
  inApp: boolean;
  email: 'instant' | 'hold' | 'digest' | 'skip';
  phone: 'send' | 'skip';
  sms: 'send' | 'skip';
  /** short machine-readable reasons (DeliveryReason values), each at most once */
  reasons: string[];
}

export const DEFAULT_SCHEDULE: ScheduleSettings = Object.freeze({
  emailMode: 'instant',
  quietStart: null,
  quietEnd: null,
  timeZone: 'Europe/Berlin',
  digestHour: 8,
});

export function isMandatoryInstant(categoryKey: string): boolean {
  return (MANDATORY_INSTANT_CATEGORIES as readonly string[]).includes(categoryKey);
}

/** Whether any absence covers the instant; each absence is the half-open [startsAt, endsAt). */
export function isAbsent(absences: readonly AbsenceWindow[], now: Date): boolean {
  const t = now.getTime();
  return absences.some((a) => a.startsAt.getTime() <= t && t < a.endsAt.getTime());
}

/**
 * Decides, for one notification and one recipient, which channels deliver and how. Pure:
 * everything it needs is in the input, including the current time.
 */
export function decideDelivery(input: DeliveryInput): DeliveryDecision {
  const { category, recipient, preferences, schedule, now } = input;
  const reasons: DeliveryReason[] = [];
  const note = (reason: DeliveryReason): void => {
    if (!reasons.includes(reason)) reasons.push(reason);
  };
  const mandatoryInstant = isMandatoryInstant(category.key);
  // Only computed when it matters, so mandatory categories never depend on absences.
  const absent = (): boolean => !mandatoryInstant && isAbsent(input.absences, now);

  // Rule 1: saved preference, else the category default; forced on for admins when mandatory.
  let inApp = preferences.in_app ?? category.defaultChannels.includes('in_app');
  if (!inApp) {
    if (category.mandatoryForAdmins && (recipient.isOrgAdmin || recipient.isPlatformAdmin)) {
      inApp = true;
      note('mandatory_in_app');
    } else {
      note('in_app_disabled');
    }
  }

  // Rules 2, 4, 5, 6, 8.
  let email: DeliveryDecision['email'];
  if (!(preferences.email ?? category.defaultChannels.includes('email'))) {
    email = 'skip';
    note('email_disabled');
  } else if (mandatoryInstant) {
    email = 'instant';
    note('mandatory_instant');
  } else if (absent()) {
    email = 'skip';
    note('absent');
  } else if (schedule.emailMode !== 'instant') {
    email = 'digest';
    note('digest');
  } else if (inQuietHours(now, schedule.quietStart, schedule.quietEnd, schedule.timeZone)) {
    email = 'hold';
    note('quiet_hours');
  } else {
    email = 'instant';
  }

  // Rules 3 and 8: explicit opt-in only, verified phone, not while absent.
  const phoneChannel = (channel: 'phone' | 'sms'): 'send' | 'skip' => {
    if (preferences[channel] !== true) {
      note(channel === 'phone' ? 'phone_not_opted_in' : 'sms_not_opted_in');
      return 'skip';
    }
    if (!recipient.phoneVerified) {
      note('phone_not_verified');
      return 'skip';
    }
    if (absent()) {
      note('absent');
      return 'skip';
    }
    return 'send';
  };
  const phone = phoneChannel('phone');
  const sms = phoneChannel('sms');

  return { inApp, email, phone, sms, reasons };
}

/**
 * Whether the account's pending e-mail should be flushed now: held instant mail, or the
 * accumulated digest. Never during quiet hours, so a daily digest whose hour lies inside
 * the quiet window never flushes (rule 7).
 *
 * - instant: whenever not quiet (held mail is released once quiet hours end).
 * - hourly_digest: when there was no digest yet, or the last one was in an earlier UTC
 *   clock hour than now.
 * - daily_digest: when the local hour equals digestHour and the last digest (if any) was
 *   on an earlier local date. On a day whose clock skips digestHour (spring-forward), no
 *   daily digest is due; on a day that repeats it, only the first pass flushes.
 */
export function digestDue(
  schedule: ScheduleSettings,
  lastDigestAt: Date | null,
  now: Date,
): boolean {
  if (inQuietHours(now, schedule.quietStart, schedule.quietEnd, schedule.timeZone)) return false;
  if (schedule.emailMode === 'instant') return true;
  if (schedule.emailMode === 'hourly_digest') {
    return lastDigestAt === null || utcHour(lastDigestAt) < utcHour(now);
  }
  const local = localTime(now, schedule.timeZone);
  if (local.hour !== schedule.digestHour) return false;
  return lastDigestAt === null || localTime(lastDigestAt, schedule.timeZone).date < local.date;
}

function utcHour(at: Date): number {
  return Math.floor(at.getTime() / 3_600_000);
}
