import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { Mailer } from '@platform/mail';
import { NotificationCenterRepository } from '../center/notification-center.repository.js';
import { ScheduleRepository } from '../center/schedule.repository.js';
import { InAppChannel } from '../channels/in-app.channel.js';
import type { Channel, DeliveryDecision } from '../delivery/decide.js';
import type { NotificationCategory } from '../entities.js';
import { PhoneDispatcher } from '../phone/phone-dispatcher.js';
import {
  type NotifyData,
  type NotifyPlan,
  planNotifications,
  recipientGroups,
  requestCategories,
} from './notify-plan.js';
import { RecipientsRepository } from './recipients.repository.js';

export interface NotifyRequest {
  /** A seeded category key, e.g. `capability_update`. */
  category: string;
  eventType: string;
  organizationId: string | null;
  /** Account ids; duplicates are ignored. */
  recipients: string[];
  payload: Record<string, unknown>;
  /** E-mail content; defaults to a summary of the category and event. */
  email?: { subject: string; text: string; html?: string };
  /**
   * Per account id, the address its e-mail goes to instead of its login (an address the
   * account just left). For e-mail sent at once, as the mandatory-instant categories' is:
   * held and digested e-mail goes to the login when it is released.
   */
  emailTo?: Readonly<Record<string, string>>;
  /** Text for SMS and phone calls; defaults to the e-mail subject. */
  shortText?: string;
  /**
   * Only these channels may deliver (the delivery rules still decide within them); the others
   * are neither sent nor recorded. Absent: every channel. For callers that deliver the other
   * channels themselves, e.g. an escalation page on in_app only.
   */
  channels?: Channel[];
  /**
   * Names what the notification is about (e.g. one escalation page), for a caller that may
   * notify again after a crash before it recorded having notified: each account keeps its
   * first in-app notification with the key, and a repeat neither writes nor pushes another
   * (its outcome names the first). The other channels of a repeat are delivered again.
   */
  idempotencyKey?: string;
}

export interface NotifyOutcome {
  accountId: string;
  notificationId: string | null;
  decision: DeliveryDecision;
}

/**
 * The one way modules notify accounts: writes the in-app rows, pushes them to open sockets and
 * routes e-mail, phone and SMS per recipient by the delivery rules (decideDelivery).
 */
@Injectable()
export class NotifyService {
  private categoryCatalogue?: Promise<ReadonlyMap<string, NotificationCategory>>;

  constructor(
    private readonly clock: Clock,
    private readonly center: NotificationCenterRepository,
    private readonly inApp: InAppChannel,
    private readonly schedules: ScheduleRepository,
    private readonly recipientsRepository: RecipientsRepository,
    private readonly mailer: Mailer,
    private readonly phone: PhoneDispatcher,
  ) {}

  async notify(request: NotifyRequest): Promise<NotifyOutcome[]> {
    const [outcomes] = await this.notifyEach([request]);
    return outcomes;
  }

  /**
   * Several notifications, each delivered exactly as notify() delivers it, with the work of all
   * of them shared: one read of each kind per organization or category, an insert and a round
   * of pushes per IN_APP_CHUNK in-app rows, one write of delivery records. Answers each request's
   * outcomes, in request order. Fails as a whole.
   */
  async notifyEach(requests: readonly NotifyRequest[]): Promise<NotifyOutcome[][]> {
    if (requests.length === 0) return [];
    const categories = requestCategories(requests, await this.categories());
    if (requests.every((r) => r.recipients.length === 0)) return requests.map(() => []);
    const now = this.clock.now();
    const data = await this.load(requests, categories, now);
    return this.carryOut(planNotifications(requests, categories, data, now), now);
  }

  /**
   * Each account's decision for an in-app notification of the category in its group's
   * organization, made now exactly as notifyEach makes it (the account's rules, an org admin's
   * mandatory categories) and read for all groups at once, for a caller that writes the
   * notifications in a statement of its own (insertNotifications) and announces them
   * (InAppChannel.announce). Per group, in order; accounts gone are left out.
   */
  async inAppDecisions(
    categoryKey: string,
    groups: ReadonlyArray<{ organizationId: string | null; accountIds: readonly string[] }>,
  ): Promise<Array<Map<string, DeliveryDecision>>> {
    const requests: NotifyRequest[] = groups.map(({ organizationId, accountIds }) => ({
      category: categoryKey,
      eventType: categoryKey,
      organizationId,
      recipients: [...accountIds],
      channels: ['in_app'],
      payload: {},
    }));
    const categories = requestCategories(requests, await this.categories());
    if (requests.every((r) => r.recipients.length === 0)) return requests.map(() => new Map());
    const now = this.clock.now();
    const data = await this.load(requests, categories, now);
    return planNotifications(requests, categories, data, now).outcomes.map(
      (outcomes) => new Map(outcomes.map(({ accountId, decision }) => [accountId, decision])),
    );
  }

  /**
   * What the plan needs, all read at once: the accounts (a statement per organization), the
   * preferences (a statement per category), the schedules and the absences (one each).
   */
  private async load(
    requests: readonly NotifyRequest[],
    categories: readonly NotificationCategory[],
    now: Date,
  ): Promise<NotifyData> {
    const everyone = [...new Set(requests.flatMap((r) => r.recipients))];
    const [accountsByOrganization, preferencesByCategory, schedules, absences] = await Promise.all([
      Promise.all(
        recipientGroups(requests, (n) => requests[n].organizationId).map(
          async ([organizationId, ids]) =>
            [
              organizationId,
              await this.recipientsRepository.accounts(ids, organizationId),
            ] as const,
        ),
      ).then((entries) => new Map(entries)),
      Promise.all(
        recipientGroups(requests, (n) => categories[n].key).map(
          async ([key, ids]) =>
            [key, await this.recipientsRepository.preferences(ids, key)] as const,
        ),
      ).then((entries) => new Map(entries)),
      this.schedules.findMany(everyone),
      this.recipientsRepository.activeAbsences(everyone, now),
    ]);
    return { accountsByOrganization, preferencesByCategory, schedules, absences };
  }

  /**
   * Writes and sends what the plan holds, in its order: the in-app rows through the in-app
   * channel, held e-mail, delivery records, then e-mail, calls and texts, whose jobs report to
   * their records. Answers the outcomes with the notifications' ids.
   */
  private async carryOut(plan: NotifyPlan, now: Date): Promise<NotifyOutcome[][]> {
    const created = await this.inApp.sendMany(plan.notifications, now);
    const idOf = (notification: number | null) =>
      notification === null ? null : created[notification].id;

    await this.recipientsRepository.holdEmails(
      plan.heldEmails.map(({ notification, ...held }) => ({
        ...held,
        notificationId: idOf(notification),
      })),
      now,
    );
    const deliveryIds = await this.recipientsRepository.recordDeliveries(
      plan.deliveries.map(({ notification, ...delivery }) => ({
        ...delivery,
        notificationId: idOf(notification),
      })),
      now,
    );
    await this.mailer.sendMany(
      plan.emails.map(({ message, delivery }) => ({
        ...message,
        deliveryId: deliveryIds[delivery],
      })),
    );
    for (const send of plan.phoneSends) {
      const deliveryId = deliveryIds[send.delivery];
      if (send.channel === 'sms') await this.phone.sms(send.to, send.text, deliveryId);
      else await this.phone.call(send.to, send.text, deliveryId);
    }

    return plan.outcomes.map((outcomes) =>
      outcomes.map(({ accountId, notification, decision }) => ({
        accountId,
        notificationId: idOf(notification),
        decision,
      })),
    );
  }

  /** The seeded categories by key, read once. */
  private categories(): Promise<ReadonlyMap<string, NotificationCategory>> {
    // One read however many notify at once; a failed read is tried again by the next call.
    this.categoryCatalogue ??= this.center.categories().then(
      (categories) => new Map(categories.map((c) => [c.key, c])),
      (error: unknown) => {
        this.categoryCatalogue = undefined;
        throw error;
      },
    );
    return this.categoryCatalogue;
  }
}
