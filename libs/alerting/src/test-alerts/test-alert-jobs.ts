import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { JobName, JobQueue } from '@platform/queue';

export interface TestAlertResolution {
  alertId: string;
  resolveAt: Date;
}

/**
 * Enqueues auto-resolution jobs with one deterministic id per test alert, so enqueueing it
 * again (the sweep, after Redis lost it) yields one job. Completed jobs are removed, so a job
 * that ran early can be enqueued again once due.
 */
@Injectable()
export class TestAlertJobs {
  constructor(
    private readonly clock: Clock,
    private readonly queue: JobQueue,
  ) {}

  static jobId(alertId: string): string {
    return `test-alert-resolve-${alertId}`;
  }

  async enqueue(items: readonly TestAlertResolution[]): Promise<void> {
    if (items.length === 0) return;
    const now = this.clock.nowMs();
    await this.queue.enqueueBulk(
      JobName.TestAlertResolve,
      items.map((item) => ({
        data: { alertId: item.alertId, resolveAt: item.resolveAt.toISOString() },
        options: {
          jobId: TestAlertJobs.jobId(item.alertId),
          delay: Math.max(0, item.resolveAt.getTime() - now),
          attempts: 5,
          backoff: { type: 'exponential', delay: 1000 },
          removeOnComplete: true,
          removeOnFail: 1_000,
        },
      })),
    );
  }

  /** Runs now those jobs still waiting out a delay, or clears a record Redis half lost. */
  promote(alertIds: readonly string[]): Promise<void> {
    return this.queue.releaseDue(
      JobName.TestAlertResolve,
      alertIds.map((alertId) => TestAlertJobs.jobId(alertId)),
    );
  }
}
