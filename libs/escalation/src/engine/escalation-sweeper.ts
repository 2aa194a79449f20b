import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { JobName, JobQueue, RecoverySweeper } from '@platform/queue';
import { EscalationInstancesRepository } from './escalation-instances.repository.js';
import { EscalationJobs } from './escalation-jobs.js';

/** How much of each kind one sweep takes on; the rest waits for the next sweep. */
const SWEEP_LIMIT = 5000;
/** A page is presumed lost once it has been pending this long without being delivered. */
export const STALE_PAGE_MS = 30_000;
/**
 * While page jobs wait or run, a pending page is most likely among them (a burst of 100,000
 * pages takes over a minute to deliver on two small workers): only a page pending this long is
 * presumed lost then. Queueing every page older than STALE_PAGE_MS again put a job per page
 * behind the backlog, 18,000 of them in such a burst, each claiming what its batch had.
 */
export const STALE_PAGE_BEHIND_BACKLOG_MS = 10 * 60_000;

/** Pages written before this are presumed lost, given the page jobs waiting or running. */
export function stalePagesBefore(now: Date, pageJobsUnfinished: number): Date {
  const age = pageJobsUnfinished > 0 ? STALE_PAGE_BEHIND_BACKLOG_MS : STALE_PAGE_MS;
  return new Date(now.getTime() - age);
}

/**
 * Recovers escalation work that Redis lost: every ESCALATION_SWEEP_INTERVAL_MS it re-enqueues
 * every due step, every due re-escalation and every page left pending (see stalePagesBefore),
 * promotes a delayed job that is already due by the clock, and clears a due job's record that
 * Redis kept without its place in the queue.
 */
@Injectable()
export class EscalationSweeper extends RecoverySweeper {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
    private readonly instances: EscalationInstancesRepository,
    private readonly jobs: EscalationJobs,
    private readonly queue: JobQueue,
  ) {
    super('escalation-sweeper', config.escalationSweepIntervalMs);
  }

  /** One sweep; resolves when it is done. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const pageJobs = await this.jobs.pageJobsUnfinished();
    const [steps, reEscalations, pages] = await Promise.all([
      this.instances.dueInstants(now, SWEEP_LIMIT),
      this.instances.dueReEscalations(now, SWEEP_LIMIT),
      this.instances.stalePages(stalePagesBefore(now, pageJobs), SWEEP_LIMIT),
    ]);
    await this.jobs.steps(steps);
    await this.jobs.reEscalations(
      reEscalations.map((r) => ({
        instanceId: r.id,
        generation: r.generation,
        dueAt: r.re_escalate_at,
      })),
    );
    await this.jobs.pageRetries(pages);
    await this.promote([
      ...steps.map((dueAt) => EscalationJobs.stepJobId(dueAt)),
      ...reEscalations.map((r) => EscalationJobs.reEscalationJobId(r.id, r.generation)),
    ]);
  }

  /**
   * Jobs enqueued with a delay by another clock (or before a clock jump) run now. A job record
   * that is in none of the queue's states (Redis lost its set but not its record, e.g. a partial
   * flush or eviction) would keep its id taken, so re-enqueueing it would change nothing: it is
   * removed, and the next sweep enqueues the work again.
   */
  private async promote(jobIds: readonly string[]): Promise<void> {
    if (jobIds.length === 0) return;
    const queue = this.queue.queue(this.queue.queueOf(JobName.EscalationStep));
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
}
