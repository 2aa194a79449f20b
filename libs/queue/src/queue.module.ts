import { getQueueToken } from '@nestjs/bullmq';
import {
  Global,
  Inject,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
  type Provider,
} from '@nestjs/common';
import {
  APP_CONFIG,
  type AppConfig,
  Dependencies,
  HealthRegistry,
  MetricsService,
  tagSocketError,
} from '@platform/core';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Gauge } from 'prom-client';
import { JobQueue } from './job-queue.service.js';
import { JOB_CATALOG, JOB_QUEUES } from './jobs.js';
import { QueueName } from './queue-name.js';
import {
  connectionProblem,
  firstConnectionPending,
  QUEUE_REDIS,
  queueRedisProvider,
  REDIS,
  redisProvider,
} from './redis.provider.js';

const DAY_SECONDS = 86400;

/** The Redis connections of the process, for BullMQ's root options and everyone else. */
@Global()
@Module({ providers: [redisProvider, queueRedisProvider], exports: [REDIS, QUEUE_REDIS] })
export class RedisConnectionsModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(QUEUE_REDIS) private readonly queueRedis: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    for (const client of [this.redis, this.queueRedis]) {
      await client.quit().catch(() => client.disconnect());
    }
  }
}

/**
 * One BullMQ Queue per queue name (under `@nestjs/bullmq`'s token), all on the shared QUEUE_REDIS
 * connection. Built here rather than by `BullModule.registerQueue` so the error listener is on
 * each Queue from its first moment: a Queue re-emits its connection's errors, and an unheard
 * 'error' event would be printed (or end the process) for every reconnect attempt.
 */
const queueProviders: Provider[] = Object.values(QueueName).map((name) => ({
  provide: getQueueToken(name),
  inject: [APP_CONFIG, QUEUE_REDIS, Dependencies],
  useFactory: (config: AppConfig, connection: Redis, dependencies: Dependencies) => {
    const queue = new Queue(name, {
      connection,
      prefix: config.redisPrefix,
      defaultJobOptions: {
        removeOnComplete: { age: DAY_SECONDS, count: 1000 },
        removeOnFail: { age: 7 * DAY_SECONDS },
      },
    });
    queue.on('error', (error: Error) =>
      dependencies.reportFailure('redis', tagSocketError(error, 'redis')),
    );
    return queue;
  },
}));

/**
 * Redis and the BullMQ queues, shared by the api (which enqueues) and the worker (which runs).
 * The queues share one connection (QUEUE_REDIS) that fails fast during an outage; their errors
 * go to Dependencies, which logs an outage once.
 */
@Global()
@Module({
  imports: [RedisConnectionsModule],
  providers: [...queueProviders, JobQueue, { provide: JOB_CATALOG, useValue: JOB_QUEUES }],
  exports: [RedisConnectionsModule, JobQueue, JOB_CATALOG, ...queueProviders],
})
export class QueueModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly jobs: JobQueue,
    private readonly health: HealthRegistry,
    private readonly metrics: MetricsService,
    private readonly dependencies: Dependencies,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(Object.values(QueueName).map((name) => this.jobs.queue(name).close()));
  }

  onModuleInit(): void {
    this.dependencies.setProbe('redis', async () => {
      // Until the first connection attempt is over the ping waits in the offline queue (at most
      // the command timeout): the start-up check must not take a connection being made for an
      // outage. After it, a disconnected client fails at once with its last connection error.
      if (this.redis.status !== 'ready' && !firstConnectionPending(this.redis))
        throw new Error(connectionProblem(this.redis));
      await this.redis.ping();
    });
    this.health.register('redis', () => this.dependencies.check('redis'));
    const jobs = this.jobs;
    const dependencies = this.dependencies;
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs per queue and state (waiting, active, delayed, failed, prioritized)',
      labelNames: ['queue', 'state'] as const,
      registers: [this.metrics.registry],
      async collect() {
        // A scrape during an outage answers without the queue figures rather than hanging.
        if (!dependencies.isUp('redis')) return;
        const depths = await jobs.depths().catch(() => null);
        for (const [queue, counts] of Object.entries(depths ?? {})) {
          for (const [state, count] of Object.entries(counts)) this.set({ queue, state }, count);
        }
      },
    });
  }
}
