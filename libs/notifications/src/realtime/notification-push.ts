import { Inject, Injectable } from '@nestjs/common';
import {
  APP_CONFIG,
  type AppConfig,
  Dependencies,
  tagSocketError,
  unavailableDependency,
} from '@platform/core';
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
 * So are pushes while Redis is down (the outage is reported to Dependencies, not per push).
 */
@Injectable()
export class NotificationPush {
  private readonly channel: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly dependencies: Dependencies,
  ) {
    this.channel = pushChannel(config);
  }

  async publish(accountId: string, push: NotificationPushMessage): Promise<void> {
    const [error] = await this.publishMany([{ accountId, push }]);
    if (error) throw error;
  }

  /**
   * Several pushes in one write to Redis (a pipeline); answers, per push in order, the error
   * that kept it from being published, or null (published, or dropped during an outage).
   */
  async publishMany(
    pushes: ReadonlyArray<{ accountId: string; push: NotificationPushMessage }>,
  ): Promise<Array<Error | null>> {
    if (pushes.length === 0) return [];
    if (!this.dependencies.isUp('redis')) return pushes.map(() => null);
    const pipeline = this.redis.pipeline();
    for (const { accountId, push } of pushes) {
      const envelope: PushEnvelope = { account_id: accountId, push };
      pipeline.publish(this.channel, JSON.stringify(envelope));
    }
    try {
      const results = (await pipeline.exec()) ?? [];
      return pushes.map((_, n) => this.outcome(results[n]?.[0] ?? null));
    } catch (error) {
      const outcome = this.outcome(error as Error);
      return pushes.map(() => outcome);
    }
  }

  private outcome(error: Error | null): Error | null {
    if (!error) return null;
    const tagged = tagSocketError(error, 'redis');
    if (unavailableDependency(tagged) !== 'redis') return error;
    this.dependencies.reportFailure('redis', tagged);
    return null;
  }
}
