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

/** A push for an account's sockets, with what sockets confined to one organization need. */
export interface AccountPush {
  accountId: string;
  push: NotificationPushMessage;
  /**
   * The organization the push concerns: the notification's (created, read), or the one whose
   * notifications were all read (all_read; null: every organization).
   */
  organizationId?: string | null;
  /** The account's unread notifications per organization (see confinedPush). */
  unreadByOrganization?: Record<string, number>;
}

/** Pushes carried by one message on the Redis channel. */
export const PUSH_BATCH = 250;

/**
 * An envelope on the Redis channel: the push and the account whose sockets receive it. A
 * message carries an array of them (or, from a publisher before batching, one).
 */
export interface PushEnvelope {
  account_id: string;
  organization_id?: string | null;
  unread_by_organization?: Record<string, number>;
  push: NotificationPushMessage;
}

/**
 * What a socket confined to one organization (opened with a static token) receives of a push:
 * only pushes about its organization's notifications, and the unread count of that
 * organization; null when the push is about another organization, about notifications of
 * none, or carries no per-organization counts.
 */
export function confinedPush(
  envelope: PushEnvelope,
  organizationId: string,
): NotificationPushMessage | null {
  const counts = envelope.unread_by_organization;
  if (!counts) return null;
  const about = envelope.organization_id ?? null;
  const concerns =
    about === organizationId || (envelope.push.event === 'all_read' && about === null);
  return concerns ? { ...envelope.push, unread_count: counts[organizationId] ?? 0 } : null;
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

  async publish(
    accountId: string,
    push: NotificationPushMessage,
    about: Omit<AccountPush, 'accountId' | 'push'> = {},
  ): Promise<void> {
    const [error] = await this.publishMany([{ accountId, push, ...about }]);
    if (error) throw error;
  }

  /**
   * Several pushes in one write to Redis: PUSH_BATCH envelopes to a message (an array), so a burst
   * costs each replica one message to parse per batch instead of one per push. Answers, per push
   * in order, the error that kept it from being published, or null (published, or dropped
   * during an outage).
   */
  async publishMany(pushes: readonly AccountPush[]): Promise<Array<Error | null>> {
    if (pushes.length === 0) return [];
    if (!this.dependencies.isUp('redis')) return pushes.map(() => null);
    const pipeline = this.redis.pipeline();
    for (let n = 0; n < pushes.length; n += PUSH_BATCH) {
      const envelopes: PushEnvelope[] = pushes
        .slice(n, n + PUSH_BATCH)
        .map(({ accountId, push, organizationId, unreadByOrganization }) => ({
          account_id: accountId,
          organization_id: organizationId,
          unread_by_organization: unreadByOrganization,
          push,
        }));
      pipeline.publish(this.channel, JSON.stringify(envelopes));
    }
    try {
      const results = (await pipeline.exec()) ?? [];
      return pushes.map((_, n) => this.outcome(results[Math.floor(n / PUSH_BATCH)]?.[0] ?? null));
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
