import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
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

  constructor(
    private readonly clock: Clock,
    private readonly engine: EscalationEngine,
  ) {}

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
    return { ran: await this.requestRun() };
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
