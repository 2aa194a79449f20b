import { getQueueToken } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Dependencies, DependencyUnavailableError, unavailableDependency } from '@platform/core';
import type { JobsOptions, Queue } from 'bullmq';
import { JOB_CATALOG, type JobCatalog, type JobName, type JobPayloads } from './jobs.js';
import { QueueName } from './queue-name.js';

/** How long an enqueue waits for Redis before it fails as unavailable. */
export const ENQUEUE_TIMEOUT_MS = 3000;

/**
 * Puts jobs on the queue their catalog entry names; the only way code enqueues work. While
 * Redis is known to be down an enqueue fails at once, and any enqueue fails after
 * ENQUEUE_TIMEOUT_MS, with DependencyUnavailableError (a 503 for a request): BullMQ itself
 * would wait for the connection as long as the outage lasts.
 */
@Injectable()
export class JobQueue {
  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(JOB_CATALOG) private readonly catalog: JobCatalog,
    private readonly dependencies: Dependencies,
  ) {}

  queue(name: QueueName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }

  /** The queue a job runs on. */
  queueOf(name: JobName): QueueName {
    const queueName = this.catalog[name];
    if (!queueName) throw new Error(`Job ${name} is not declared in the job catalog`);
    return queueName;
  }

  async enqueue<N extends JobName>(
    name: N,
    data: JobPayloads[N],
    options?: JobsOptions,
  ): Promise<string> {
    const queueName = this.catalog[name];
    if (!queueName) throw new Error(`Job ${name} is not declared in the job catalog`);
    const job = await this.withRedis(() => this.queue(queueName).add(String(name), data, options));
    return job.id!;
  }

  /**
   * Puts many jobs of one kind on their queue in one Redis round trip per chunk (BullMQ
   * `addBulk`); returns the job ids in the order given.
   */
  async enqueueBulk<N extends JobName>(
    name: N,
    jobs: Array<{ data: JobPayloads[N]; options?: JobsOptions }>,
    chunkSize = 1000,
  ): Promise<string[]> {
    const queueName = this.catalog[name];
    if (!queueName) throw new Error(`Job ${name} is not declared in the job catalog`);
    const queue = this.queue(queueName);
    const ids: string[] = [];
    for (let i = 0; i < jobs.length; i += chunkSize) {
      const added = await this.withRedis(() =>
        queue.addBulk(
          jobs
            .slice(i, i + chunkSize)
            .map((job) => ({ name: String(name), data: job.data, opts: job.options })),
        ),
      );
      ids.push(...added.map((job) => job.id!));
    }
    return ids;
  }

  /**
   * For jobs a sweeper enqueued again because their work is due by the clock: a job still waiting
   * out a delay another clock (or a clock jump) set runs now, and a job record that is in none of
   * the queue's states (Redis lost its set but kept the record: a partial flush, an eviction) is
   * removed, since its id would stay taken and enqueueing it again would change nothing. The next
   * sweep enqueues that work anew.
   */
  async releaseDue(name: JobName, jobIds: readonly string[]): Promise<void> {
    if (jobIds.length === 0) return;
    const queue = this.queue(this.queueOf(name));
    await Promise.all(
      jobIds.map(async (id) => {
        const job = await queue.getJob(id);
        if (!job) return;
        const state = await job.getState();
        if (state === 'delayed') await job.promote().catch(() => undefined);
        else if (state === 'unknown') await job.remove().catch(() => undefined);
      }),
    );
  }

  /**
   * Which of `jobIds` are still to run or running in any of the `names` queues (waiting, delayed,
   * prioritized or active); a job that completed, failed or is gone is not.
   */
  async unfinishedIds(
    names: readonly QueueName[],
    jobIds: readonly string[],
  ): Promise<Set<string>> {
    const unfinished = new Set<string>();
    await this.withRedis(() =>
      Promise.all(
        jobIds.flatMap((id) =>
          names.map(async (name) => {
            const state = await this.queue(name).getJobState(id);
            if (state !== 'completed' && state !== 'failed' && state !== 'unknown')
              unfinished.add(id);
          }),
        ),
      ),
    );
    return unfinished;
  }

  async depths(): Promise<Record<QueueName, Record<string, number>>> {
    const entries = await Promise.all(
      Object.values(QueueName).map(async (name) => {
        const counts = await this.withRedis(() =>
          this.queue(name).getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized'),
        );
        return [name, counts] as const;
      }),
    );
    return Object.fromEntries(entries) as Record<QueueName, Record<string, number>>;
  }

  /** Jobs of a queue waiting or running, on any worker (delayed ones are not counted). */
  async unfinished(name: QueueName): Promise<number> {
    const counts = await this.withRedis(() =>
      this.queue(name).getJobCounts('waiting', 'active', 'prioritized'),
    );
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  /** Runs a Redis operation of the queues within the outage rules above. */
  async withRedis<T>(operation: () => Promise<T>): Promise<T> {
    this.dependencies.assertUp('redis');
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        operation(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new DependencyUnavailableError(
                  'redis',
                  new Error(`no answer within ${ENQUEUE_TIMEOUT_MS} ms`),
                ),
              ),
            ENQUEUE_TIMEOUT_MS,
          );
        }),
      ]);
    } catch (error) {
      if (unavailableDependency(error) !== 'redis') throw error;
      this.dependencies.reportFailure('redis', error);
      throw error instanceof DependencyUnavailableError
        ? error
        : new DependencyUnavailableError('redis', error);
    } finally {
      clearTimeout(timer);
    }
  }
}
