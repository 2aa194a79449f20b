import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  SetMetadata,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { type Job, Worker } from 'bullmq';
import { JOB_CATALOG, type JobCatalog, type JobName, type JobPayloads } from './jobs.js';
import { QueueName } from './queue-name.js';

const ON_JOB = 'platform:on-job';

/** Jobs one worker process runs at once, per queue; queues of I/O-bound jobs run wider. */
export const QUEUE_CONCURRENCY: Partial<Record<QueueName, number>> = {
  [QueueName.Digests]: 200,
  // Escalation pages share their database work while they run together (a burst's in-app
  // pages are read, notified and settled a batch at a time), so more of them at once cost
  // few more statements.
  [QueueName.Escalations]: 50,
};
const DEFAULT_CONCURRENCY = 10;

/** Marks the method that processes a job; exactly one per declared job. */
export const OnJob = (name: JobName): MethodDecorator => SetMetadata(ON_JOB, name);

export type JobHandler<N extends JobName = JobName> = (
  data: JobPayloads[N],
  job: Job,
) => Promise<unknown>;

export class JobCatalogError extends Error {
  constructor(problems: string[]) {
    super(`Job processors do not match the job catalog: ${problems.join('; ')}`);
    this.name = 'JobCatalogError';
  }
}

/** Every declared job needs exactly one processor and every processor a declared job. */
export function verifyJobCoverage(catalog: JobCatalog, handlers: Map<string, unknown[]>): void {
  const problems: string[] = [];
  for (const name of Object.keys(catalog)) {
    const found = handlers.get(name)?.length ?? 0;
    if (found === 0) problems.push(`job "${name}" has no processor`);
    if (found > 1) problems.push(`job "${name}" has ${found} processors`);
  }
  for (const name of handlers.keys()) {
    if (!(name in catalog)) problems.push(`processor for undeclared job "${name}"`);
  }
  if (problems.length > 0) throw new JobCatalogError(problems);
}

/**
 * Finds the `@OnJob` processors of the worker's providers, refuses to start when they do not
 * cover the catalog, then runs one BullMQ worker per queue that dispatches by job name.
 */
@Injectable()
export class JobDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('jobs');
  private readonly workers: Worker[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    @Inject(JOB_CATALOG) private readonly catalog: JobCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  discoverHandlers(): Map<string, JobHandler[]> {
    const handlers = new Map<string, JobHandler[]>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = (instance as Record<string, unknown>)[method];
        if (typeof fn !== 'function') continue;
        const name = this.reflector.get<string | undefined>(ON_JOB, fn as () => unknown);
        if (!name) continue;
        const list = handlers.get(name) ?? [];
        list.push((fn as JobHandler).bind(instance));
        handlers.set(name, list);
      }
    }
    return handlers;
  }

  onApplicationBootstrap(): void {
    const handlers = this.discoverHandlers();
    verifyJobCoverage(this.catalog, handlers);
    const queues = new Set<QueueName>(Object.values(this.catalog));
    for (const queue of queues) {
      const worker = new Worker(
        queue,
        async (job: Job) => {
          const handler = handlers.get(job.name)?.[0];
          if (!handler) throw new Error(`No processor for job ${job.name}`);
          return handler(job.data as never, job);
        },
        {
          connection: { url: this.config.redisUrl, maxRetriesPerRequest: null },
          prefix: this.config.redisPrefix,
          concurrency: QUEUE_CONCURRENCY[queue] ?? DEFAULT_CONCURRENCY,
        },
      );
      worker.on('failed', (job, error) =>
        this.logger.warn(
          `job ${job?.name} ${job?.id} failed (attempt ${job?.attemptsMade}): ${error.message}`,
        ),
      );
      worker.on('error', (error) => this.logger.error(`worker on ${queue}: ${error.message}`));
      this.workers.push(worker);
    }
    this.logger.log(
      `processing ${Object.keys(this.catalog).length} job types on ${queues.size} queues`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
  }
}
