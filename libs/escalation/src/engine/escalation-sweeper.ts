import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { JobName, JobQueue, RecoverySweeper } from '@platform/queue';
import { PagesRepository } from '../paging/pages.repository.js';
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

/**
 * A claim held this long on a pending page by a job that no longer waits or runs was a delivery
 * whose process ended before recording what it sent (outcomes are recorded behind a burst, 5 s
 * at most after the send: see OutcomesBehind). Waiting out the claim's own lapse (CLAIM_LAPSE_MS)
 * would leave a crashed worker's last e-mails pending for minutes.
 */
export const FINISHED_CLAIM_MS = 30_000;
/** Claimants looked at per sweep. */
const CLAIMANTS_LIMIT = 500;

/** Pages written before this are presumed lost, given the page jobs waiting or running. */
export function stalePagesBefore(now: Date, pageJobsUnfinished: number): Date {
  const age = pageJobsUnfinished > 0 ? STALE_PAGE_BEHIND_BACKLOG_MS : STALE_PAGE_MS;
  return new Date(now.getTime() - age);
}

/**
 * Recovers escalation work that Redis or a worker lost: every ESCALATION_SWEEP_INTERVAL_MS it
 * releases the claims of page jobs that ended without recording their pages (FINISHED_CLAIM_MS),
 * re-enqueues every due step, every due re-escalation and every page left pending (see
 * stalePagesBefore), promotes a delayed job that is already due by the clock, and clears a due
 * job's record that Redis kept without its place in the queue.
 */
@Injectable()
export class EscalationSweeper extends RecoverySweeper {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
    private readonly instances: EscalationInstancesRepository,
    private readonly pages: PagesRepository,
    private readonly jobs: EscalationJobs,
    private readonly queue: JobQueue,
  ) {
    super('escalation-sweeper', config.escalationSweepIntervalMs);
  }

  /** One sweep; resolves when it is done. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const staleBefore = stalePagesBefore(now, await this.jobs.pageJobsUnfinished());
    await this.releaseFinishedClaims(now, staleBefore);
    const [steps, reEscalations, pages] = await Promise.all([
      this.instances.dueInstants(now, SWEEP_LIMIT),
      this.instances.dueReEscalations(now, SWEEP_LIMIT),
      this.instances.stalePages(staleBefore, SWEEP_LIMIT),
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
    // Step and re-escalation jobs share a queue.
    await this.queue.releaseDue(JobName.EscalationStep, [
      ...steps.map((dueAt) => EscalationJobs.stepJobId(dueAt)),
      ...reEscalations.map((r) => EscalationJobs.reEscalationJobId(r.id, r.generation)),
    ]);
  }

  /**
   * Frees the stale pages (written before `staleBefore`, which this sweep queues again) that page
   * jobs claimed FINISHED_CLAIM_MS ago or more and ended holding.
   */
  private async releaseFinishedClaims(now: Date, staleBefore: Date): Promise<void> {
    const claimedBefore = new Date(now.getTime() - FINISHED_CLAIM_MS);
    const claimants = await this.pages.staleClaimants(staleBefore, claimedBefore, CLAIMANTS_LIMIT);
    if (claimants.length === 0) return;
    const unfinished = await this.jobs.unfinishedPageJobs(claimants);
    const released = await this.pages.releaseClaims(
      claimants.filter((claimant) => !unfinished.has(claimant)),
      staleBefore,
      claimedBefore,
    );
    if (released > 0) this.logger.warn(`${released} pages claimed by ended jobs released`);
  }
}
