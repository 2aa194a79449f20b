import { Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, forEachConcurrently, MetricsService } from '@platform/core';
import {
  type InsertedNotification,
  type NewNotification,
  NotificationCenterRepository,
} from '../center/notification-center.repository.js';
import { NotificationPush } from '../realtime/notification-push.js';
import {
  type DeliveryChannel,
  type FailureVerdict,
  failureReason,
  type Receipt,
} from './channel.js';

/** Notifications one statement writes: a storm's rows go in several, side by side. */
export const IN_APP_CHUNK = 1_000;
/** Statements writing one sendMany's rows at once: about the database's cores. */
const IN_APP_LANES = 2;

/**
 * The notification center: a notification row per message, pushed to the account's open sockets
 * with its unread counts. Batched by nature (`sendMany`: an insert and a round of pushes per
 * chunk of rows); a repeated idempotency key writes and pushes nothing. A failed push is logged,
 * not a failed delivery: the row is the delivery, sockets that missed it read it on their next
 * fetch.
 */
@Injectable()
export class InAppChannel implements DeliveryChannel<NewNotification> {
  readonly name = 'in_app';
  private readonly logger = new Logger('notifications');

  constructor(
    private readonly clock: Clock,
    private readonly center: NotificationCenterRepository,
    private readonly push: NotificationPush,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  async send(message: NewNotification): Promise<Receipt> {
    const [notification] = await this.sendMany([message], this.clock.now());
    return { providerRef: notification.id };
  }

  /**
   * Writes the rows (answering a notification per row, in order) and pushes those it created:
   * IN_APP_CHUNK rows to a statement, IN_APP_LANES statements at once, each chunk pushed as soon
   * as it is written, so a storm's first notifications do not wait for its last. A chunk that
   * fails fails the call once the others are done; what they wrote stays, and callers that may
   * repeat a call key their rows (a repeat writes nothing twice).
   */
  async sendMany(messages: readonly NewNotification[], now: Date): Promise<InsertedNotification[]> {
    const written: InsertedNotification[] = [];
    const starts: number[] = [];
    for (let n = 0; n < messages.length; n += IN_APP_CHUNK) starts.push(n);
    await forEachConcurrently(starts, IN_APP_LANES, async (start) => {
      const rows = await this.center.insertMany(messages.slice(start, start + IN_APP_CHUNK), now);
      rows.forEach((row, n) => (written[start + n] = row));
      await this.announce(rows.filter((n) => n.created));
    });
    return written;
  }

  /**
   * Counts and pushes notifications just written, with each account's unread counts: those of
   * sendMany, and those another library's statement wrote (insertNotifications).
   */
  async announce(created: readonly InsertedNotification[]): Promise<void> {
    this.metrics?.countDelivery('in_app', 'sent', created.length);
    await this.pushCreated(created);
  }

  classify(error: unknown): FailureVerdict {
    return { retry: true, reason: failureReason(error) };
  }

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
}
