import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { Redis } from 'ioredis';
import { pushChannel, type PushEnvelope } from './notification-push.js';
import { NotificationsCableGateway } from './notifications-cable.gateway.js';

function isEnvelope(value: unknown): value is PushEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const { account_id: accountId, push } = value as Record<string, unknown>;
  return typeof accountId === 'string' && typeof push === 'object' && push !== null;
}

/**
 * This replica's side of the fan-out: a dedicated Redis connection in subscriber mode that
 * hands every published push to the local sockets. Subscribed before the application counts
 * as started, so a push published after start-up reaches every started replica.
 */
@Injectable()
export class PushRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('NotificationsCable');
  private subscriber: Redis | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly gateway: NotificationsCableGateway,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const channel = pushChannel(this.config);
    const subscriber = new Redis(this.config.redisUrl, { connectionName: 'realtime-subscriber' });
    this.subscriber = subscriber;
    subscriber.on('error', (error: Error) =>
      this.logger.warn(`Redis subscriber: ${error.message}`),
    );
    subscriber.on('message', (from: string, message: string) => {
      if (from === channel) this.relay(message);
    });
    await subscriber.subscribe(channel);
  }

  async onApplicationShutdown(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private relay(message: string): void {
    let envelope: unknown;
    try {
      envelope = JSON.parse(message);
    } catch {
      envelope = null;
    }
    if (!isEnvelope(envelope)) {
      this.logger.warn('Ignoring a malformed notification push from Redis');
      return;
    }
    this.gateway.deliver(envelope.account_id, envelope.push);
  }
}
