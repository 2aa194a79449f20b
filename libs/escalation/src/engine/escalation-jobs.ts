import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { JobName, JobQueue, QueueName } from '@platform/queue';
import type { JobsOptions } from 'bullmq';

/**
 * How long before its due instant a step job is released from BullMQ's delayed set: BullMQ
 * promotes a delayed job up to ~150 ms late, and the job uses the rest to resolve its targets.
 */
export const STEP_JOB_LEAD_MS = 500;

/** Pages a delivery job takes at once. */
export const PAGE_BATCH = 500;

/** A page to deliver again: after `delayMs`, on the queue of in-app pages or the other one. */
export interface PageRetry {
  pageId: string;
  inApp: boolean;
  attempts: number;
  delayMs: number;
  tag?: string;
}

const PAGE_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: true,
  removeOnFail: 1_000,
} as const;

const pageJob = (inApp: boolean) => (inApp ? JobName.EscalationPages : JobName.EscalationPageSends);

export interface ReEscalation {
  instanceId: string;
  generation: number;
  dueAt: Date;
}

/**
 * Enqueues escalation work with deterministic job ids, so enqueueing the same thing twice (the
 * engine, then the sweeper after a lost Redis write) yields one job. Jobs are removed on
 * completion: once a step ran, its id may be enqueued again and finds nothing due.
 *
 * Steps due at the same instant share one job: a step job runs every step due by then, so one
 * trigger per instant is enough, and a burst of thousands of escalations opened together costs
 * one delayed job per step instead of thousands.
 */
@Injectable()
export class EscalationJobs {
  constructor(
    private readonly clock: Clock,
    private readonly queue: JobQueue,
  ) {}

  /** The job of the steps due at one instant. */
  static stepJobId(dueAt: Date): string {
    return `steps-at-${dueAt.getTime()}`;
  }

  static reEscalationJobId(instanceId: string, generation: number): string {
    return `reescalate-${instanceId}-${generation}`;
  }

  /** The job delivering a page after `attempts` attempts. */
  static pageJobId(pageId: string, attempts: number): string {
    return `page-${pageId}-${attempts}`;
  }

  /** One job per distinct due instant among `dueAts`. */
  async steps(dueAts: readonly Date[]): Promise<void> {
    const instants = [...new Set(dueAts.map((d) => d.getTime()))].map((ms) => new Date(ms));
    if (instants.length === 0) return;
    await this.queue.enqueueBulk(
      JobName.EscalationStep,
      instants.map((dueAt) => ({
        data: { dueAt: dueAt.toISOString() },
        // Released early, the job waits for the due instant itself (see EscalationProcessor).
        options: this.options(
          EscalationJobs.stepJobId(dueAt),
          new Date(dueAt.getTime() - STEP_JOB_LEAD_MS),
        ),
      })),
    );
  }

  async reEscalations(items: readonly ReEscalation[]): Promise<void> {
    if (items.length === 0) return;
    await this.queue.enqueueBulk(
      JobName.EscalationReEscalate,
      items.map((item) => ({
        data: { instanceId: item.instanceId, generation: item.generation },
        options: this.options(
          EscalationJobs.reEscalationJobId(item.instanceId, item.generation),
          item.dueAt,
        ),
      })),
    );
  }

  /**
   * The first delivery of new pages, PAGE_BATCH to a job: a burst of pages is claimed, sent and
   * settled a batch at a time (see PageDeliveryProcessor). In-app pages (`inApp`) and the others
   * go to queues of their own, so a slow SMTP server or phone provider never holds up an in-app
   * page. The batch's own retries are for a dependency failing the whole batch; each page retries
   * on its own (`pageRetries`).
   */
  async pages(pageIds: readonly string[], inApp: boolean): Promise<void> {
    if (pageIds.length === 0) return;
    const batches: string[][] = [];
    for (let n = 0; n < pageIds.length; n += PAGE_BATCH)
      batches.push(pageIds.slice(n, n + PAGE_BATCH));
    await this.queue.enqueueBulk(
      pageJob(inApp),
      batches.map((batch) => ({
        data: { pageIds: batch },
        options: { jobId: `pages-${batch[0]}`, ...PAGE_JOB_OPTIONS },
      })),
    );
  }

  /**
   * A job per page to try again after `delayMs`, named by the page and its attempts so far: a
   * page queued again before its retry ran (by the sweeper) adds nothing. `tag` tells apart
   * retries that count no attempt (a rate limit's deferral).
   */
  async pageRetries(retries: readonly PageRetry[]): Promise<void> {
    for (const inApp of [true, false]) {
      const own = retries.filter((retry) => retry.inApp === inApp);
      if (own.length === 0) continue;
      await this.queue.enqueueBulk(
        pageJob(inApp),
        own.map(({ pageId, attempts, delayMs, tag }) => ({
          data: { pageIds: [pageId] },
          options: {
            jobId: EscalationJobs.pageJobId(pageId, attempts) + (tag ? `-${tag}` : ''),
            delay: Math.max(0, delayMs),
            ...PAGE_JOB_OPTIONS,
          },
        })),
      );
    }
  }

  /** Page jobs waiting or running on any worker; 0 when Redis cannot tell (nor take jobs). */
  async pageJobsUnfinished(): Promise<number> {
    const counts = await Promise.all(
      [QueueName.Pages, QueueName.PageSends].map((name) =>
        this.queue.unfinished(name).catch(() => 0),
      ),
    );
    return counts[0] + counts[1];
  }

  /** Which of `jobIds` are page jobs still to run or running on any worker. */
  unfinishedPageJobs(jobIds: readonly string[]): Promise<Set<string>> {
    return this.queue.unfinishedIds([QueueName.Pages, QueueName.PageSends], jobIds);
  }

  private options(jobId: string, dueAt: Date): JobsOptions {
    return {
      jobId,
      delay: Math.max(0, dueAt.getTime() - this.clock.now().getTime()),
      attempts: 5,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: true,
      removeOnFail: 1_000,
    };
  }
}
