import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { NotificationCategory } from '../entities.js';
import { NotificationsErrorCode, NotificationsException } from '../notifications-exception.js';
import { NotificationPush, type NotificationPushMessage } from '../realtime/notification-push.js';
import {
  NotificationCenterRepository,
  type NotificationView,
} from './notification-center.repository.js';

/** Reads and read-marks of an account's in-app notifications. */
@Injectable()
export class NotificationCenterService {
  private readonly logger = new Logger('notifications');

  constructor(
    private readonly clock: Clock,
    private readonly repository: NotificationCenterRepository,
    private readonly push: NotificationPush,
  ) {}

  list(
    accountId: string,
    organizationId: string | null,
    unread: boolean | undefined,
    limit: number,
    offset: number,
  ) {
    return this.repository.list(accountId, organizationId, unread, limit, offset);
  }

  unreadCount(accountId: string, organizationId: string | null): Promise<number> {
    return this.repository.unreadCount(accountId, organizationId);
  }

  categories(): Promise<NotificationCategory[]> {
    return this.repository.categories();
  }

  /** Marks one notification read; another account's, or another organization's, is 404. */
  async markRead(
    accountId: string,
    organizationId: string | null,
    id: string,
  ): Promise<{ id: string; read_at: Date }> {
    const marked = await this.repository.markRead(accountId, organizationId, id, this.clock.now());
    if (!marked) {
      throw new NotificationsException(NotificationsErrorCode.NotFound, 'Notification not found');
    }
    const view = { id: marked.id, read_at: marked.read_at };
    await this.publish(accountId, { event: 'read', notification: view }, marked.organization_id);
    return view;
  }

  /** Marks read every unread notification of the organization, or (null) of every one. */
  async markAllRead(accountId: string, organizationId: string | null): Promise<number> {
    const marked = await this.repository.markAllRead(accountId, organizationId, this.clock.now());
    await this.publish(accountId, { event: 'all_read' }, organizationId);
    return marked;
  }

  /**
   * Open sockets learn of the change, with the unread counts as of now; a failed push never
   * fails the request (clients poll too).
   */
  private async publish(
    accountId: string,
    push: Omit<NotificationPushMessage, 'unread_count'>,
    organizationId: string | null,
  ): Promise<void> {
    try {
      const counts = (await this.repository.unreadCounts([accountId])).get(accountId)!;
      await this.push.publish(
        accountId,
        { ...push, unread_count: counts.total },
        { organizationId, unreadByOrganization: counts.byOrganization },
      );
    } catch (error) {
      this.logger.warn(`push to ${accountId} failed: ${(error as Error).message}`);
    }
  }
}

export type { NotificationView };
