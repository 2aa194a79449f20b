import { Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, MetricsService } from '@platform/core';
import { type EmailMessage, Mailer } from '@platform/mail';
import {
  type InsertedNotification,
  NotificationCenterRepository,
} from '../center/notification-center.repository.js';
import { ScheduleRepository } from '../center/schedule.repository.js';
import { type Channel, type DeliveryDecision, decideDelivery } from '../delivery/decide.js';
import type { NotificationCategory } from '../entities.js';
import { NotificationsErrorCode, NotificationsException } from '../notifications-exception.js';
import { PhoneDispatcher } from '../phone/phone-dispatcher.js';
import { NotificationPush } from '../realtime/notification-push.js';
import { RecipientsRepository } from './recipients.repository.js';
import { scheduleSettings } from './schedule-settings.js';

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
  private readonly logger = new Logger('notifications');
  private categories?: Map<string, NotificationCategory>;

  constructor(
    private readonly clock: Clock,
    private readonly center: NotificationCenterRepository,
    private readonly schedules: ScheduleRepository,
    private readonly recipientsRepository: RecipientsRepository,
    private readonly mailer: Mailer,
    private readonly phone: PhoneDispatcher,
    private readonly push: NotificationPush,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  async notify(request: NotifyRequest): Promise<NotifyOutcome[]> {
    const [outcomes] = await this.notifyEach([request]);
    return outcomes;
  }

  /**
   * Several notifications, each delivered exactly as notify() delivers it, with the work of all
   * of them shared: one read of each kind per organization or category, one insert of the
   * in-app rows, one round of pushes, one write of delivery records. Answers each request's
   * outcomes, in request order. Fails as a whole.
   */
  async notifyEach(requests: readonly NotifyRequest[]): Promise<NotifyOutcome[][]> {
    const categories = await Promise.all(requests.map((r) => this.category(r.category)));
    const recipientIds = requests.map((r) => [...new Set(r.recipients)]);
    const everyone = [...new Set(recipientIds.flat())];
    if (everyone.length === 0) return requests.map(() => []);
    const now = this.clock.now();
    const idsBy = (key: (n: number) => string | null) => {
      const groups = new Map<string | null, Set<string>>();
      requests.forEach((_, n) => {
        const group = groups.get(key(n)) ?? new Set<string>();
        for (const id of recipientIds[n]) group.add(id);
        groups.set(key(n), group);
      });
      return [...groups].filter(([, ids]) => ids.size > 0);
    };
    const [accountsByOrganization, preferencesByCategory, schedules, absences] = await Promise.all([
      Promise.all(
        idsBy((n) => requests[n].organizationId).map(
          async ([organizationId, ids]) =>
            [
              organizationId,
              await this.recipientsRepository.accounts([...ids], organizationId),
            ] as const,
        ),
      ).then((entries) => new Map(entries)),
      Promise.all(
        idsBy((n) => categories[n].key).map(
          async ([key, ids]) =>
            [key, await this.recipientsRepository.preferences([...ids], key!)] as const,
        ),
      ).then((entries) => new Map(entries)),
      this.schedules.findMany(everyone),
      this.recipientsRepository.activeAbsences(everyone, now),
    ]);
    const scheduleOf = new Map(schedules.map((s) => [s.accountId, s]));

    const decidedEach = requests.map((request, n) => {
      const category = categories[n];
      const wanted = new Set(recipientIds[n]);
      const preferences = preferencesByCategory.get(category.key);
      return (accountsByOrganization.get(request.organizationId) ?? [])
        .filter((account) => wanted.has(account.id))
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
              absences: absences.get(account.id) ?? [],
              now,
            }),
          ),
        }));
    });

    // The center answers its rows in the order given.
    const created = await this.center.insertMany(
      decidedEach.flatMap((decided, n) =>
        decided
          .filter((d) => d.decision.inApp)
          .map((d) => ({
            accountId: d.account.id,
            organizationId: requests[n].organizationId,
            categoryKey: categories[n].key,
            eventType: requests[n].eventType,
            payload: requests[n].payload,
            idempotencyKey: requests[n].idempotencyKey,
          })),
      ),
      now,
    );
    let next = 0;
    const notificationsEach = decidedEach.map(
      (decided) =>
        new Map(
          decided.filter((d) => d.decision.inApp).map((d) => [d.account.id, created[next++]]),
        ),
    );
    const fresh = created.filter((n) => n.created);
    this.metrics?.countDelivery('in_app', 'sent', fresh.length);
    await this.pushCreated(fresh);

    const held: Parameters<RecipientsRepository['holdEmails']>[0] = [];
    const records: Parameters<RecipientsRepository['recordDeliveries']>[0] = [];
    const phoneSends: Array<{
      channel: 'phone' | 'sms';
      to: string;
      text: string;
      index: number;
    }> = [];
    const instant: EmailMessage[] = [];
    requests.forEach((request, n) => {
      const email = request.email ?? this.defaultEmail(categories[n], request);
      const shortText = request.shortText ?? email.subject;
      for (const { account, preferences, decision } of decidedEach[n]) {
        const notificationId = notificationsEach[n].get(account.id)?.id ?? null;
        if (decision.email === 'instant') {
          instant.push({
            to: account.login,
            subject: email.subject,
            text: email.text,
            html: email.html,
          });
          records.push({
            notificationId,
            accountId: account.id,
            channel: 'email',
            status: 'queued',
            reason: null,
          });
        } else if (decision.email === 'hold' || decision.email === 'digest') {
          held.push({
            accountId: account.id,
            notificationId,
            categoryKey: categories[n].key,
            subject: email.subject,
            text: email.text,
            html: email.html ?? null,
          });
          records.push({
            notificationId,
            accountId: account.id,
            channel: 'email',
            status: 'held',
            reason: decision.email === 'hold' ? 'quiet_hours' : 'digest',
          });
        }
        for (const channel of ['phone', 'sms'] as const) {
          if (request.channels && !request.channels.includes(channel)) continue;
          if (decision[channel] !== 'send') {
            // An opt-in that was not honoured is an outcome the account owner may ask about;
            // channels never opted into stay silent so every notify() does not write rows.
            if (preferences[channel] === true) {
              records.push({
                notificationId,
                accountId: account.id,
                channel,
                status: 'skipped',
                reason: decision.reasons.includes('phone_not_verified')
                  ? 'phone_not_verified'
                  : 'absent',
              });
            }
            continue;
          }
          if (!account.phone_number) continue;
          phoneSends.push({
            channel,
            to: account.phone_number,
            text: shortText,
            index: records.length,
          });
          records.push({
            notificationId,
            accountId: account.id,
            channel,
            status: 'queued',
            reason: null,
          });
        }
      }
    });
    await this.mailer.sendMany(instant);
    await this.recipientsRepository.holdEmails(held, now);
    const deliveryIds = await this.recipientsRepository.recordDeliveries(records, now);
    for (const send of phoneSends) {
      if (send.channel === 'sms') await this.phone.sms(send.to, send.text, deliveryIds[send.index]);
      else await this.phone.call(send.to, send.text, deliveryIds[send.index]);
    }

    return decidedEach.map((decided, n) =>
      decided.map(({ account, decision }) => ({
        accountId: account.id,
        notificationId: notificationsEach[n].get(account.id)?.id ?? null,
        decision,
      })),
    );
  }

  /**
   * Pushes each new notification to its account's sockets with the account's unread counts
   * (in all, and per organization for sockets confined to one).
   */
  private async pushCreated(created: readonly InsertedNotification[]): Promise<void> {
    if (created.length === 0) return;
    const counts = await this.center.unreadCounts([...new Set(created.map((n) => n.account_id))]);
    const failures = await this.push.publishMany(
      created.map(({ account_id: accountId, created: _created, ...view }) => ({
        accountId,
        push: {
          event: 'created' as const,
          notification: view,
          unread_count: counts.get(accountId)!.total,
        },
        organizationId: view.organization_id,
        unreadByOrganization: counts.get(accountId)!.byOrganization,
      })),
    );
    failures.forEach((error, n) => {
      if (error) this.logger.warn(`push to ${created[n].account_id} failed: ${error.message}`);
    });
  }

  private async category(key: string): Promise<NotificationCategory> {
    this.categories ??= new Map((await this.center.categories()).map((c) => [c.key, c]));
    const category = this.categories.get(key);
    if (!category)
      throw new NotificationsException(
        NotificationsErrorCode.NotFound,
        `Unknown notification category ${key}`,
      );
    return category;
  }

  private defaultEmail(
    category: NotificationCategory,
    request: NotifyRequest,
  ): { subject: string; text: string; html?: string } {
    const subject = `[${category.label}] ${request.eventType.replace(/_/g, ' ')}`;
    const details = Object.entries(request.payload)
      .filter(([, value]) => typeof value !== 'object' || value === null)
      .map(([key, value]) => `${key}: ${String(value)}`);
    return { subject, text: [subject, '', ...details].join('\n') };
  }
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
