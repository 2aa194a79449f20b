import type { EmailMessage } from '@platform/mail';
import type { NewNotification } from '../center/notification-center.repository.js';
import {
  type AbsenceWindow,
  type Channel,
  type DeliveryDecision,
  decideDelivery,
} from '../delivery/decide.js';
import type { NotificationCategory, NotificationSchedule } from '../entities.js';
import { NotificationsErrorCode, NotificationsException } from '../notifications-exception.js';
import type { NotifyRequest } from './notify.service.js';
import type { RecipientRow } from './recipients.repository.js';
import { scheduleSettings } from './schedule-settings.js';

export type ChannelPreferences = Partial<Record<Channel, boolean>>;

/** What the plan needs from the database, read for all the requests together. */
export interface NotifyData {
  /** The recipients' accounts, as seen from each organization of the requests. */
  accountsByOrganization: ReadonlyMap<string | null, readonly RecipientRow[]>;
  /** Per category key, each recipient's saved preferences. */
  preferencesByCategory: ReadonlyMap<string, ReadonlyMap<string, ChannelPreferences>>;
  schedules: readonly NotificationSchedule[];
  /** Per account, the absences covering now. */
  absences: ReadonlyMap<string, AbsenceWindow[]>;
}

/** A row written for a notification; `notification` is its index in NotifyPlan.notifications. */
interface OfNotification {
  notification: number | null;
}

export interface PlannedHeldEmail extends OfNotification {
  accountId: string;
  categoryKey: string;
  subject: string;
  text: string;
  html: string | null;
}

export interface PlannedDelivery extends OfNotification {
  accountId: string;
  channel: 'email' | 'phone' | 'sms';
  status: 'queued' | 'held' | 'skipped';
  reason: 'quiet_hours' | 'digest' | 'phone_not_verified' | 'absent' | null;
}

/** An e-mail sent at once, after the delivery records are written. */
export interface PlannedEmail {
  message: EmailMessage;
  /** Index in NotifyPlan.deliveries of the record the job reports to. */
  delivery: number;
}

export interface PlannedPhoneSend {
  channel: 'phone' | 'sms';
  to: string;
  text: string;
  /** Index in NotifyPlan.deliveries of the record the job reports to. */
  delivery: number;
}

export interface PlannedOutcome extends OfNotification {
  accountId: string;
  decision: DeliveryDecision;
}

/**
 * Everything notifyEach() writes and sends, in the order it does. Ids the database assigns
 * are indexes into the lists that create them.
 */
export interface NotifyPlan {
  /**
   * The in-app rows. The insert answers one notification per row, in this order; each is
   * pushed when the insert created it (a repeated idempotency key creates nothing).
   */
  notifications: NewNotification[];
  /** E-mail sent at once. */
  emails: PlannedEmail[];
  /** E-mail kept for the end of quiet hours or the next digest. */
  heldEmails: PlannedHeldEmail[];
  deliveries: PlannedDelivery[];
  /** Calls and text messages, each sent after the delivery records are written. */
  phoneSends: PlannedPhoneSend[];
  /** Per request, in request order, an outcome per recipient in the order of its accounts. */
  outcomes: PlannedOutcome[][];
}

/** Each request's category, in request order; the first unknown key is a 404. */
export function requestCategories(
  requests: readonly NotifyRequest[],
  catalogue: ReadonlyMap<string, NotificationCategory>,
): NotificationCategory[] {
  return requests.map(({ category: key }) => {
    const category = catalogue.get(key);
    if (!category)
      throw new NotificationsException(
        NotificationsErrorCode.NotFound,
        `Unknown notification category ${key}`,
      );
    return category;
  });
}

/**
 * The distinct recipients of the requests sharing a key (`keyOf` request index), in the order
 * first named, per key in the order first seen; keys whose requests name nobody are left out.
 */
export function recipientGroups<K>(
  requests: readonly NotifyRequest[],
  keyOf: (n: number) => K,
): Array<[K, string[]]> {
  const groups = new Map<K, Set<string>>();
  requests.forEach((request, n) => {
    const group = groups.get(keyOf(n)) ?? new Set<string>();
    for (const id of request.recipients) group.add(id);
    groups.set(keyOf(n), group);
  });
  return [...groups].filter(([, ids]) => ids.size > 0).map(([key, ids]) => [key, [...ids]]);
}

interface Recipient {
  account: RecipientRow;
  preferences: ChannelPreferences;
  decision: DeliveryDecision;
}

/**
 * What to write and send for the requests (with their categories, in request order) given the
 * data read for them at `now`. Pure.
 */
export function planNotifications(
  requests: readonly NotifyRequest[],
  categories: readonly NotificationCategory[],
  data: NotifyData,
  now: Date,
): NotifyPlan {
  const plan: NotifyPlan = {
    notifications: [],
    emails: [],
    heldEmails: [],
    deliveries: [],
    phoneSends: [],
    outcomes: [],
  };
  const scheduleOf = new Map(data.schedules.map((s) => [s.accountId, s]));
  const accountIndexes = new Map<string | null, ReadonlyMap<string, number>>();
  const indexOf = (organizationId: string | null) => {
    let index = accountIndexes.get(organizationId);
    if (!index) {
      const accounts = data.accountsByOrganization.get(organizationId) ?? [];
      index = new Map(accounts.map((account, position) => [account.id, position]));
      accountIndexes.set(organizationId, index);
    }
    return index;
  };
  requests.forEach((request, n) => {
    const category = categories[n];
    // Composed only for a recipient who gets an e-mail, text or call (most get in-app only).
    let content: EmailContent | undefined;
    const email = () => (content ??= request.email ?? defaultEmail(category, request));
    const shortText = () => request.shortText ?? email().subject;
    const recipients = decideRecipients(
      request,
      category,
      data,
      indexOf(request.organizationId),
      scheduleOf,
      now,
    );
    plan.outcomes.push(
      recipients.map((recipient) => {
        const { account, decision } = recipient;
        const notification = decision.inApp
          ? append(plan.notifications, {
              accountId: account.id,
              organizationId: request.organizationId,
              categoryKey: category.key,
              eventType: request.eventType,
              payload: request.payload,
              idempotencyKey: request.idempotencyKey,
            })
          : null;
        planEmail(plan, recipient, notification, category.key, email, request.emailTo);
        planPhone(plan, recipient, notification, request.channels, shortText);
        return { accountId: account.id, notification, decision };
      }),
    );
  });
  return plan;
}

/**
 * The request's recipients that are accounts, each named once, in the order the organization's
 * accounts were read, with the decision for each.
 */
function decideRecipients(
  request: NotifyRequest,
  category: NotificationCategory,
  data: NotifyData,
  accountIndex: ReadonlyMap<string, number>,
  scheduleOf: ReadonlyMap<string, NotificationSchedule>,
  now: Date,
): Recipient[] {
  const preferences = data.preferencesByCategory.get(category.key);
  const accounts = data.accountsByOrganization.get(request.organizationId) ?? [];
  // By index, not by scanning the organization's accounts: a request names few of them.
  const positions = [
    ...new Set(
      request.recipients.flatMap((id) => {
        const position = accountIndex.get(id);
        return position === undefined ? [] : [position];
      }),
    ),
  ].sort((a, b) => a - b);
  return positions
    .map((position) => accounts[position])
    .map((account) => ({
      account,
      preferences: preferences?.get(account.id) ?? {},
      decision: restrict(
        request.channels,
        decideDelivery({
          category: {
            key: category.key,
            defaultChannels: category.defaultChannels,
            mandatoryForAdmins: category.mandatoryForAdmins,
          },
          recipient: {
            isOrgAdmin: account.is_org_admin,
            isPlatformAdmin: account.is_platform_admin,
            phoneVerified: account.phone_verified,
          },
          preferences: preferences?.get(account.id) ?? {},
          schedule: scheduleSettings(scheduleOf.get(account.id)),
          absences: data.absences.get(account.id) ?? [],
          now,
        }),
      ),
    }));
}

function planEmail(
  plan: NotifyPlan,
  { account, decision }: Recipient,
  notification: number | null,
  categoryKey: string,
  content: () => EmailContent,
  emailTo: NotifyRequest['emailTo'],
): void {
  if (decision.email === 'skip') return;
  const email = content();
  if (decision.email === 'instant') {
    const delivery = append(plan.deliveries, {
      notification,
      accountId: account.id,
      channel: 'email',
      status: 'queued',
      reason: null,
    });
    plan.emails.push({
      message: {
        to: emailTo?.[account.id] ?? account.login,
        subject: email.subject,
        text: email.text,
        html: email.html,
      },
      delivery,
    });
  } else if (decision.email === 'hold' || decision.email === 'digest') {
    plan.heldEmails.push({
      accountId: account.id,
      notification,
      categoryKey,
      subject: email.subject,
      text: email.text,
      html: email.html ?? null,
    });
    plan.deliveries.push({
      notification,
      accountId: account.id,
      channel: 'email',
      status: 'held',
      reason: decision.email === 'hold' ? 'quiet_hours' : 'digest',
    });
  }
}

function planPhone(
  plan: NotifyPlan,
  { account, preferences, decision }: Recipient,
  notification: number | null,
  channels: Channel[] | undefined,
  text: () => string,
): void {
  for (const channel of ['phone', 'sms'] as const) {
    if (channels && !channels.includes(channel)) continue;
    if (decision[channel] !== 'send') {
      // An opt-in that was not honoured is an outcome the account owner may ask about;
      // channels never opted into stay silent so every notify() does not write rows.
      if (preferences[channel] === true) {
        plan.deliveries.push({
          notification,
          accountId: account.id,
          channel,
          status: 'skipped',
          reason: decision.reasons.includes('phone_not_verified') ? 'phone_not_verified' : 'absent',
        });
      }
      continue;
    }
    if (!account.phone_number) continue;
    const delivery = append(plan.deliveries, {
      notification,
      accountId: account.id,
      channel,
      status: 'queued',
      reason: null,
    });
    plan.phoneSends.push({ channel, to: account.phone_number, text: text(), delivery });
  }
}

type EmailContent = { subject: string; text: string; html?: string };

function defaultEmail(category: NotificationCategory, request: NotifyRequest): EmailContent {
  const subject = `[${category.label}] ${request.eventType.replace(/_/g, ' ')}`;
  const details = Object.entries(request.payload)
    .filter(([, value]) => typeof value !== 'object' || value === null)
    .map(([key, value]) => `${key}: ${String(value)}`);
  return { subject, text: [subject, '', ...details].join('\n') };
}

/** The decision with every channel outside `channels` turned off; unchanged when absent. */
function restrict(channels: Channel[] | undefined, decision: DeliveryDecision): DeliveryDecision {
  if (!channels) return decision;
  return {
    ...decision,
    inApp: decision.inApp && channels.includes('in_app'),
    email: channels.includes('email') ? decision.email : 'skip',
    phone: channels.includes('phone') ? decision.phone : 'skip',
    sms: channels.includes('sms') ? decision.sms : 'skip',
  };
}

/** Appends the item; answers its index. */
function append<T>(list: T[], item: T): number {
  list.push(item);
  return list.length - 1;
}
