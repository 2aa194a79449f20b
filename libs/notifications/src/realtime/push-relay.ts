import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Dependencies, tagSocketError } from '@platform/core';
import { redisRetryDelay } from '@platform/queue';
import { Redis } from 'ioredis';
import { pushChannel, type PushEnvelope } from './notification-push.js';
import { NotificationsCableGateway } from './notifications-cable.gateway.js';

function isEnvelope(value: unknown): value is PushEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const {
    account_id: accountId,
    organization_id: organizationId,
    unread_by_organization: counts,
    push,
  } = value as Record<string, unknown>;
  return (
    typeof accountId === 'string' &&
    (organizationId === undefined ||
      organizationId === null ||
      typeof organizationId === 'string') &&
    (counts === undefined || (typeof counts === 'object' && counts !== null)) &&
    typeof push === 'object' &&
    push !== null
  );
}

/** How long start-up waits for the subscription before it goes on without (Redis down). */
const SUBSCRIBE_WAIT_MS = 2000;

/**
 * This replica's side of the fan-out: a dedicated Redis connection in subscriber mode that
 * hands every published push to the local sockets. Subscribed before the application counts
 * as started, so a push published after start-up reaches every started replica. With Redis
 * down at start the subscription waits in the client's queue and is made when Redis answers;
 * after a reconnect ioredis subscribes again by itself.
 */
@Injectable()
export class PushRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('NotificationsCable');
  private subscriber: Redis | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly gateway: NotificationsCableGateway,
    private readonly dependencies: Dependencies,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const channel = pushChannel(this.config);
    const subscriber = new Redis(this.config.redisUrl, {
      connectionName: 'realtime-subscriber',
      maxRetriesPerRequest: null,
      retryStrategy: redisRetryDelay,
    });
    this.subscriber = subscriber;
    subscriber.on('error', (error: Error) =>
      this.dependencies.reportFailure('redis', tagSocketError(error, 'redis')),
    );
    subscriber.on('message', (from: string, message: string) => {
      if (from === channel) this.relay(message);
    });
    const subscribed = subscriber.subscribe(channel).then(
      () => true,
      (error: Error) => {
        this.logger.warn(`Redis subscription failed: ${error.message}`);
        return true;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), SUBSCRIBE_WAIT_MS);
    });
    if (!(await Promise.race([subscribed, waited]))) {
      this.logger.warn('Redis does not answer yet: pushes reach this replica once it does');
    }
    clearTimeout(timer);
  }

  async onApplicationShutdown(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private relay(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      parsed = null;
    }
    const envelopes = Array.isArray(parsed) ? parsed : [parsed];
    const valid = envelopes.filter(isEnvelope);
    if (valid.length < envelopes.length)
      this.logger.warn('Ignoring a malformed notification push from Redis');
    this.gateway.deliverMany(valid);
  }
}
