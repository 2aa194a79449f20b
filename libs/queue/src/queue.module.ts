import { BullModule } from '@nestjs/bullmq';
import { Global, Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, HealthRegistry, MetricsService } from '@platform/core';
import type { Redis } from 'ioredis';
import { Gauge } from 'prom-client';
import { JobQueue } from './job-queue.service.js';
import { JOB_CATALOG, JOB_QUEUES } from './jobs.js';
import { QueueName } from './queue-name.js';
import { REDIS, redisProvider } from './redis.provider.js';

const DAY_SECONDS = 86400;

/** Redis and the BullMQ queues, shared by the api (which enqueues) and the worker (which runs). */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        connection: { url: config.redisUrl },
        prefix: config.redisPrefix,
        defaultJobOptions: {
          removeOnComplete: { age: DAY_SECONDS, count: 1000 },
          removeOnFail: { age: 7 * DAY_SECONDS },
        },
      }),
    }),
    BullModule.registerQueue(...Object.values(QueueName).map((name) => ({ name }))),
  ],
  providers: [redisProvider, JobQueue, { provide: JOB_CATALOG, useValue: JOB_QUEUES }],
  exports: [REDIS, JobQueue, JOB_CATALOG, BullModule],
})
export class QueueModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly jobs: JobQueue,
    private readonly health: HealthRegistry,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.health.register('redis', async () => {
      await this.redis.ping();
    });
    const jobs = this.jobs;
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs per queue and state (waiting, active, delayed, failed, prioritized)',
      labelNames: ['queue', 'state'] as const,
      registers: [this.metrics.registry],
      async collect() {
        for (const [queue, counts] of Object.entries(await jobs.depths())) {
          for (const [state, count] of Object.entries(counts)) this.set({ queue, state }, count);
        }
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
