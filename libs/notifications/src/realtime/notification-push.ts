import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { REDIS } from '@platform/queue';
import type { Redis } from 'ioredis';

export type NotificationPushEvent = 'created' | 'read' | 'all_read';

/** What a NotificationsChannel subscriber receives as `message`. */
export interface NotificationPushMessage {
  event: NotificationPushEvent;
  notification?: Record<string, unknown>;
  unread_count: number;
}

/** The envelope on the Redis channel: the push and the account whose sockets receive it. */
export interface PushEnvelope {
  account_id: string;
  push: NotificationPushMessage;
}

/**
 * The Redis pub/sub channel of pushes. Channels are not keys, so the client's `keyPrefix`
 * does not apply to them: the deployment's prefix is part of the name instead.
 */
export function pushChannel(config: Pick<AppConfig, 'redisPrefix'>): string {
  return `${config.redisPrefix}:realtime:notifications`;
}

/**
 * Publishes a push to an account's NotificationsChannel subscribers on every API replica
 * (each replica's relay delivers it to its own sockets). Needs only Redis, so the worker can
 * publish too. A push nobody is connected for is dropped: clients catch up through the REST API.
 */
@Injectable()
export class NotificationPush {
  private readonly channel: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    this.channel = pushChannel(config);
  }

  async publish(accountId: string, push: NotificationPushMessage): Promise<void> {
    const envelope: PushEnvelope = { account_id: accountId, push };
    await this.redis.publish(this.channel, JSON.stringify(envelope));
  }

  /**
   * Several pushes in one write to Redis (a pipeline); answers, per push in order, the error
   * that kept it from being published, or null.
   */
  async publishMany(
    pushes: ReadonlyArray<{ accountId: string; push: NotificationPushMessage }>,
  ): Promise<Array<Error | null>> {
    if (pushes.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const { accountId, push } of pushes) {
      const envelope: PushEnvelope = { account_id: accountId, push };
      pipeline.publish(this.channel, JSON.stringify(envelope));
    }
    try {
      const results = (await pipeline.exec()) ?? [];
      return pushes.map((_, n) => results[n]?.[0] ?? null);
    } catch (error) {
      return pushes.map(() => error as Error);
    }
  }
}
