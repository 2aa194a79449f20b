import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { JobName, JobQueue } from '@platform/queue';
import { EscalationInstancesRepository } from './escalation-instances.repository.js';
import { EscalationJobs } from './escalation-jobs.js';

/** How much of each kind one sweep takes on; the rest waits for the next sweep. */
const SWEEP_LIMIT = 5000;
/** A page is presumed lost once it has been pending this long without being delivered. */
const STALE_PAGE_MS = 30_000;

/**
 * Recovers escalation work that Redis lost (a flush, a failover, an enqueue that failed after
 * a commit): on worker start and every ESCALATION_SWEEP_INTERVAL_MS it re-enqueues every due
 * step, every due re-escalation and every page left pending. Job ids are deterministic, so work
 * still queued is not duplicated; a delayed job that is already due by the clock is promoted.
 * It is a timer of the worker process rather than a BullMQ repeatable job, which a Redis flush
 * would erase with everything else.
 */
@Injectable()
export class EscalationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('escalation-sweeper');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly instances: EscalationInstancesRepository,
    private readonly jobs: EscalationJobs,
    private readonly queue: JobQueue,
  ) {}

  onApplicationBootstrap(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.config.escalationSweepIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
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
    await this.jobs.pages(pages);
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

  private tick(): void {
    if (this.running) return;
    this.running = this.sweep()
      .catch((error: Error) => this.logger.warn(`sweep failed: ${error.message}`))
      .finally(() => {
        this.running = null;
      });
  }
}
