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

  list(accountId: string, unread: boolean | undefined, limit: number, offset: number) {
    return this.repository.list(accountId, unread, limit, offset);
  }

  unreadCount(accountId: string): Promise<number> {
    return this.repository.unreadCount(accountId);
  }

  categories(): Promise<NotificationCategory[]> {
    return this.repository.categories();
  }

  async markRead(accountId: string, id: string): Promise<{ id: string; read_at: Date }> {
    const marked = await this.repository.markRead(accountId, id, this.clock.now());
    if (!marked) {
      throw new NotificationsException(NotificationsErrorCode.NotFound, 'Notification not found');
    }
    await this.publish(accountId, {
      event: 'read',
      notification: { ...marked },
      unread_count: await this.unreadCount(accountId),
    });
    return marked;
  }

  async markAllRead(accountId: string): Promise<number> {
    const marked = await this.repository.markAllRead(accountId, this.clock.now());
    await this.publish(accountId, {
      event: 'all_read',
      unread_count: await this.unreadCount(accountId),
    });
    return marked;
  }

  /** Open sockets learn of the change; a failed push never fails the request (clients poll too). */
  private async publish(accountId: string, push: NotificationPushMessage): Promise<void> {
    await this.push
      .publish(accountId, push)
      .catch((error: Error) => this.logger.warn(`push to ${accountId} failed: ${error.message}`));
  }
}

export type { NotificationView };
