import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock, StartupTasks } from '@platform/core';
import { JobName, JobQueue, OnJob, QueueName } from '@platform/queue';
import { EscalationPagesPruner } from './escalation-pages-pruner.js';
import { RetentionRepository } from './retention.repository.js';

/** Spec: timeline events and notification endpoint deliveries are kept 90 days. */
export const ALERTING_RETENTION_DAYS = 90;
export const PRUNE_BATCH_SIZE = 5000;
export const ALERTS_PRUNE_SCHEDULER_ID = 'alerts-prune';
/** Daily, at a quiet hour (UTC). */
export const ALERTS_PRUNE_PATTERN = '30 3 * * *';

/**
 * The daily retention sweep: deletes webhook deliveries (with their attempts), alert timeline
 * events and settled escalation pages (through `EscalationPagesPruner`, bound by the escalation
 * worker module) older than 90 days, in batches so no statement holds locks for long.
 */
@Injectable()
export class AlertsPruneProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('alerts-prune');

  constructor(
    private readonly clock: Clock,
    private readonly retention: RetentionRepository,
    private readonly escalationPages: EscalationPagesPruner,
    private readonly jobs: JobQueue,
    private readonly startup: StartupTasks,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.startup.run(
      'alert retention schedule',
      async () => {
        await this.jobs.withRedis(() =>
          this.jobs
            .queue(QueueName.Maintenance)
            .upsertJobScheduler(
              ALERTS_PRUNE_SCHEDULER_ID,
              { pattern: ALERTS_PRUNE_PATTERN, tz: 'UTC' },
              { name: JobName.AlertsPrune, data: {} },
            ),
        );
      },
      { againWhenBack: 'redis' },
    );
  }

  @OnJob(JobName.AlertsPrune)
  async prune(): Promise<{ deliveries: number; alertEvents: number; escalationPages: number }> {
    const cutoff = new Date(this.clock.nowMs() - ALERTING_RETENTION_DAYS * 86_400_000);
    const deliveries = await this.drain((batch) => this.retention.pruneDeliveries(cutoff, batch));
    const alertEvents = await this.drain((batch) => this.retention.pruneAlertEvents(cutoff, batch));
    const escalationPages = await this.drain((batch) =>
      this.escalationPages.prunePages(cutoff, batch),
    );
    this.logger.log(
      `pruned ${deliveries} webhook deliveries, ${alertEvents} alert events and ` +
        `${escalationPages} escalation pages before ${cutoff.toISOString()}`,
    );
    return { deliveries, alertEvents, escalationPages };
  }

  private async drain(step: (batch: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await step(PRUNE_BATCH_SIZE);
      total += deleted;
      if (deleted < PRUNE_BATCH_SIZE) return total;
    }
  }
}
