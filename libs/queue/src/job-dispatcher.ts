import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  SetMetadata,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import {
  APP_CONFIG,
  type AppConfig,
  Dependencies,
  MetricsService,
  tagSocketError,
  unavailableDependency,
} from '@platform/core';
import { DelayedError, type Job, Worker } from 'bullmq';
import { redisRetryDelay } from './redis.provider.js';
import { JOB_CATALOG, type JobCatalog, type JobName, type JobPayloads } from './jobs.js';
import { QueueName } from './queue-name.js';

const ON_JOB = 'platform:on-job';

/** Jobs one worker process runs at once, per queue; queues of I/O-bound jobs run wider. */
export const QUEUE_CONCURRENCY: Partial<Record<QueueName, number>> = {
  [QueueName.Digests]: 200,
  // A page job is a batch whose work is mostly this process's CPU: a few at a time keep a burst
  // spread over every worker instead of piled on the one that fetched first.
  [QueueName.Pages]: 3,
  [QueueName.PageSends]: 3,
  [QueueName.FanOuts]: 2,
};
const DEFAULT_CONCURRENCY = 10;
/** A job that failed because a dependency is down is tried again this much later, unpenalized. */
const OUTAGE_RETRY_DELAY_MS = 2000;
/** How long a worker waits before retrying its fetch loop after a Redis error. */
const FETCH_RETRY_DELAY_MS = 1000;
/**
 * A running job's lock lasts this long (renewed every half of it while the job runs), and other
 * workers look for jobs whose lock lapsed this often: the jobs of a killed worker run again
 * within about 15 s (BullMQ's defaults, 30 s each, took up to 90 s).
 */
const JOB_LOCK_MS = 10_000;
const STALLED_CHECK_MS = 5000;

/** Marks the method that processes a job; exactly one per declared job. */
export const OnJob = (name: JobName): MethodDecorator => SetMetadata(ON_JOB, name);

export type JobHandler<N extends JobName = JobName> = (
  data: JobPayloads[N],
  job: Job,
) => Promise<unknown>;

/**
 * Thrown by a processor when the job must wait (a rate limit): it goes back to the queue for
 * `delayMs` without using one of its attempts, and is not a failure.
 */
export class DeferJob extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'DeferJob';
  }
}

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
 *
 * Outages: while PostgreSQL is down the workers pause (they take no new job) and resume when it
 * answers; a job that fails because PostgreSQL or Redis is unreachable goes back to the queue
 * for a later try without using up one of its attempts. Redis errors of the workers' own
 * connections go to Dependencies, which logs an outage once. On shutdown the workers stop
 * taking jobs and the process waits for the running ones (before the database closes).
 * Metrics: `job_duration_seconds` and `jobs_failed_total` per queue and job.
 */
@Injectable()
export class JobDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('jobs');
  private readonly workers: Worker[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    @Inject(JOB_CATALOG) private readonly catalog: JobCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dependencies: Dependencies,
    private readonly metrics: MetricsService,
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
    for (const queue of queues) this.workers.push(this.startWorker(queue, handlers));
    const pauseOrResume = (up: boolean) => {
      for (const worker of this.workers) {
        if (up) void worker.resume();
        else void worker.pause(true);
      }
      this.logger.log(up ? 'job processing resumed' : 'job processing paused: PostgreSQL is down');
    };
    this.dependencies.onChange((name, up) => {
      if (name === 'database') pauseOrResume(up);
    });
    if (!this.dependencies.isUp('database')) pauseOrResume(false);
    this.logger.log(
      `processing ${Object.keys(this.catalog).length} job types on ${queues.size} queues`,
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
  }

  private startWorker(queue: QueueName, handlers: Map<string, JobHandler[]>): Worker {
    const duration = this.metrics.histogram(
      'job_duration_seconds',
      'Time a job took, by queue, job and outcome (completed, failed, deferred)',
      ['queue', 'job', 'outcome'] as const,
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    );
    const failures = this.metrics.counter(
      'jobs_failed_total',
      'Job attempts that failed, by queue and job',
      ['queue', 'job'] as const,
    );
    const worker: Worker = new Worker(
      queue,
      async (job: Job, token?: string) => {
        const handler = handlers.get(job.name)?.[0];
        if (!handler) throw new Error(`No processor for job ${job.name}`);
        const started = process.hrtime.bigint();
        const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
        try {
          const result = await handler(job.data as never, job);
          duration.observe({ queue, job: job.name, outcome: 'completed' }, seconds());
          return result;
        } catch (error) {
          if (error instanceof DeferJob && token) {
            duration.observe({ queue, job: job.name, outcome: 'deferred' }, seconds());
            await job.moveToDelayed(Date.now() + error.delayMs, token);
            throw new DelayedError();
          }
          const dependency = unavailableDependency(error);
          if (!dependency || !token) {
            duration.observe({ queue, job: job.name, outcome: 'failed' }, seconds());
            failures.inc({ queue, job: job.name });
            throw error;
          }
          this.dependencies.reportFailure(dependency, error);
          duration.observe({ queue, job: job.name, outcome: 'deferred' }, seconds());
          // Without Redis the move fails too: the job's lock then lapses and BullMQ's stalled
          // check puts it back when Redis answers again.
          await job.moveToDelayed(Date.now() + OUTAGE_RETRY_DELAY_MS, token).catch(() => undefined);
          throw new DelayedError();
        }
      },
      {
        connection: {
          url: this.config.redisUrl,
          maxRetriesPerRequest: null,
          retryStrategy: redisRetryDelay,
        },
        prefix: this.config.redisPrefix,
        concurrency: QUEUE_CONCURRENCY[queue] ?? DEFAULT_CONCURRENCY,
        runRetryDelay: FETCH_RETRY_DELAY_MS,
        lockDuration: JOB_LOCK_MS,
        stalledInterval: STALLED_CHECK_MS,
      },
    );
    worker.on('failed', (job, error) => {
      if (error instanceof DelayedError || unavailableDependency(error)) return;
      this.logger.warn(
        `job ${job?.name} ${job?.id} failed (attempt ${job?.attemptsMade}): ${error.message}`,
      );
    });
    worker.on('error', (error) => {
      const tagged = tagSocketError(error, 'redis');
      if (unavailableDependency(tagged)) this.dependencies.reportFailure('redis', tagged);
      else this.logger.error(`worker on ${queue}: ${error.message}`);
    });
    return worker;
  }
}
