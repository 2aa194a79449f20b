import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { Clock, MetricsService } from '@platform/core';
import { JobName, type JobPayloads, OnJob } from '@platform/queue';
import { EscalationEngine } from './escalation-engine.js';
import { STEP_JOB_LEAD_MS } from './escalation-jobs.js';

/**
 * The engine's jobs. Every step job asks for a run of all due steps; while a run is in flight,
 * the jobs arriving meanwhile share one follow-up run that starts after it (so each job's step,
 * due when the job arrived, is taken by a run that began after that). A burst of thousands of
 * step jobs due together thus costs a few set-based runs, not thousands of queries.
 */
@Injectable()
export class EscalationProcessor {
  private current: Promise<number> | null = null;
  private next: Promise<number> | null = null;
  private readonly lateness;

  constructor(
    private readonly clock: Clock,
    private readonly engine: EscalationEngine,
    metrics: MetricsService,
  ) {
    this.lateness = metrics.histogram(
      'escalation_step_lateness_seconds',
      'From the instant escalation steps fell due to the end of the run that paged them',
      [],
      [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    );
  }

  /**
   * Released early (STEP_JOB_LEAD_MS), the job resolves the targets of its steps meanwhile and
   * waits for its due instant.
   */
  @OnJob(JobName.EscalationStep)
  async step(job: JobPayloads[JobName.EscalationStep]): Promise<{ ran: number }> {
    const dueAt = new Date(job.dueAt);
    const early = dueAt.getTime() - this.clock.now().getTime();
    if (early > 0) {
      this.engine.prepare(dueAt);
      await sleep(Math.min(early, STEP_JOB_LEAD_MS * 2));
    }
    const ran = await this.requestRun();
    this.lateness.observe(Math.max(0, this.clock.nowMs() - dueAt.getTime()) / 1000);
    return { ran };
  }

  @OnJob(JobName.EscalationReEscalate)
  async reEscalate(job: JobPayloads[JobName.EscalationReEscalate]): Promise<void> {
    await this.engine.reEscalate(job.instanceId, job.generation);
  }

  private requestRun(): Promise<number> {
    if (!this.current) {
      this.current = this.engine.runDue().finally(() => {
        this.current = null;
      });
      return this.current;
    }
    this.next ??= this.current
      .catch(() => 0)
      .then(() => {
        this.next = null;
        return this.requestRun();
      });
    return this.next;
  }
}
