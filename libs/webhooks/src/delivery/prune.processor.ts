import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock, StartupTasks } from '@platform/core';
import { JobName, JobQueue, OnJob, QueueName } from '@platform/queue';
import { ReceiptsRepository } from '../receive/receipts.repository.js';
import { OrganizationWebhookDeliveriesRepository } from './deliveries.repository.js';

/** Deliveries and receipts are kept 90 days, as notification endpoint deliveries are. */
export const WEBHOOKS_RETENTION_DAYS = 90;
export const WEBHOOKS_PRUNE_BATCH_SIZE = 5000;
export const WEBHOOKS_PRUNE_SCHEDULER_ID = 'organization-webhooks-prune';
/** Daily, at a quiet hour (UTC), apart from the alerting prune. */
export const WEBHOOKS_PRUNE_PATTERN = '45 3 * * *';

/**
 * The daily retention sweep of organization webhooks: deletes deliveries (with their attempts),
 * receipts and event claims older than 90 days, in batches so no statement holds locks for
 * long. Claims that old can go: every watcher reports only transitions of the last day at most
 * (see the watchers' catch-up windows), so none is told again.
 */
@Injectable()
export class OrganizationWebhooksPruneProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('organization-webhooks-prune');

  constructor(
    private readonly clock: Clock,
    private readonly deliveries: OrganizationWebhookDeliveriesRepository,
    private readonly receipts: ReceiptsRepository,
    private readonly jobs: JobQueue,
    private readonly startup: StartupTasks,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.startup.run(
      'organization webhook retention schedule',
      async () => {
        await this.jobs.withRedis(() =>
          this.jobs
            .queue(QueueName.Maintenance)
            .upsertJobScheduler(
              WEBHOOKS_PRUNE_SCHEDULER_ID,
              { pattern: WEBHOOKS_PRUNE_PATTERN, tz: 'UTC' },
              { name: JobName.OrganizationWebhooksPrune, data: {} },
            ),
        );
      },
      { againWhenBack: 'redis' },
    );
  }

  @OnJob(JobName.OrganizationWebhooksPrune)
  async prune(): Promise<{ deliveries: number; receipts: number; claims: number }> {
    const cutoff = new Date(this.clock.nowMs() - WEBHOOKS_RETENTION_DAYS * 86_400_000);
    const deliveries = await this.drain((batch) => this.deliveries.prune(cutoff, batch));
    const receipts = await this.drain((batch) => this.receipts.prune(cutoff, batch));
    const claims = await this.drain((batch) => this.deliveries.pruneClaims(cutoff, batch));
    this.logger.log(
      `pruned ${deliveries} webhook deliveries, ${receipts} receipts and ${claims} event claims before ${cutoff.toISOString()}`,
    );
    return { deliveries, receipts, claims };
  }

  private async drain(step: (batch: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await step(WEBHOOKS_PRUNE_BATCH_SIZE);
      total += deleted;
      if (deleted < WEBHOOKS_PRUNE_BATCH_SIZE) return total;
    }
  }
}
