import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { JobName, JobQueue } from '@platform/queue';
import type { JobsOptions } from 'bullmq';

/** A step run: the job id is derived from these, so one step run is one job at most. */
export interface StepRun {
  instanceId: string;
  generation: number;
  repeatCount: number;
  stepIndex: number;
  dueAt: Date;
}

export interface ReEscalation {
  instanceId: string;
  generation: number;
  dueAt: Date;
}

/**
 * Enqueues escalation work with deterministic job ids, so enqueueing the same thing twice (the
 * engine, then the sweeper after a lost Redis write) yields one job. Jobs are removed on
 * completion: once a step ran, its id may be enqueued again and finds nothing due.
 */
@Injectable()
export class EscalationJobs {
  constructor(
    private readonly clock: Clock,
    private readonly queue: JobQueue,
  ) {}

  static stepJobId(run: Omit<StepRun, 'dueAt'>): string {
    return `step-${run.instanceId}-${run.generation}-${run.repeatCount}-${run.stepIndex}`;
  }

  static reEscalationJobId(instanceId: string, generation: number): string {
    return `reescalate-${instanceId}-${generation}`;
  }

  static pageJobId(pageId: string): string {
    return `page-${pageId}`;
  }

  async steps(runs: readonly StepRun[]): Promise<void> {
    if (runs.length === 0) return;
    await this.queue.enqueueBulk(
      JobName.EscalationStep,
      runs.map((run) => ({
        data: {
          instanceId: run.instanceId,
          generation: run.generation,
          repeatCount: run.repeatCount,
          stepIndex: run.stepIndex,
        },
        options: this.options(EscalationJobs.stepJobId(run), run.dueAt),
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

  async pages(pageIds: readonly string[]): Promise<void> {
    if (pageIds.length === 0) return;
    await this.queue.enqueueBulk(
      JobName.EscalationPage,
      pageIds.map((pageId) => ({
        data: { pageId },
        options: {
          jobId: EscalationJobs.pageJobId(pageId),
          attempts: 6,
          backoff: { type: 'exponential', delay: 2_000 },
          removeOnComplete: true,
          removeOnFail: 1_000,
        },
      })),
    );
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
