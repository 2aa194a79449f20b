import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { JobName, JobQueue, RecoverySweeper } from '@platform/queue';
import { EscalationInstancesRepository } from './escalation-instances.repository.js';
import { EscalationJobs } from './escalation-jobs.js';

/** How much of each kind one sweep takes on; the rest waits for the next sweep. */
const SWEEP_LIMIT = 5000;
/** A page is presumed lost once it has been pending this long without being delivered. */
const STALE_PAGE_MS = 30_000;

/**
 * Recovers escalation work that Redis lost: every ESCALATION_SWEEP_INTERVAL_MS it re-enqueues
 * every due step, every due re-escalation and every page left pending, and promotes a delayed
 * job that is already due by the clock.
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
    const [steps, reEscalations, pages] = await Promise.all([
      this.instances.dueInstants(now, SWEEP_LIMIT),
      this.instances.dueReEscalations(now, SWEEP_LIMIT),
      this.instances.stalePages(new Date(now.getTime() - STALE_PAGE_MS), SWEEP_LIMIT),
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

  /** Jobs enqueued with a delay by another clock (or before a clock jump) run now. */
  private async promote(jobIds: readonly string[]): Promise<void> {
    if (jobIds.length === 0) return;
    const queue = this.queue.queue(this.queue.queueOf(JobName.EscalationStep));
    await Promise.all(
      jobIds.map(async (id) => {
        const job = await queue.getJob(id);
        if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
      }),
    );
  }
}
