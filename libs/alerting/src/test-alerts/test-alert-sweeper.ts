import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { RecoverySweeper } from '@platform/queue';
import { TestAlertJobs } from './test-alert-jobs.js';
import { TestAlertsRepository } from './test-alerts.repository.js';

/** How many due test alerts one sweep takes on; the rest waits for the next sweep. */
const SWEEP_LIMIT = 1000;

/**
 * Makes sure every due test alert gets its auto-resolution job, whatever happened to Redis:
 * every ESCALATION_SWEEP_INTERVAL_MS it enqueues the job of each unsettled test alert due by
 * the clock and promotes one still delayed (or clears its record, kept without its place in the
 * queue).
 */
@Injectable()
export class TestAlertSweeper extends RecoverySweeper {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
    private readonly testAlerts: TestAlertsRepository,
    private readonly jobs: TestAlertJobs,
  ) {
    super('test-alert-sweeper', config.escalationSweepIntervalMs);
  }

  async sweep(): Promise<void> {
    const due = await this.testAlerts.due(this.clock.now(), SWEEP_LIMIT);
    if (due.length === 0) return;
    await this.jobs.enqueue(due.map((d) => ({ alertId: d.alert_id, resolveAt: d.resolve_at })));
    await this.jobs.promote(due.map((d) => d.alert_id));
  }
}
