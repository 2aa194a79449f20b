import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { TestAlertJobs } from './test-alert-jobs.js';
import { TestAlertsRepository } from './test-alerts.repository.js';

/** How many due test alerts one sweep takes on; the rest waits for the next sweep. */
const SWEEP_LIMIT = 1000;

/**
 * Makes sure every due test alert gets its auto-resolution job, whatever happened to Redis
 * (a flush, a failover, an enqueue that failed after the commit): on worker start and every
 * ESCALATION_SWEEP_INTERVAL_MS it enqueues the job of each unsettled test alert due by the
 * clock (ids are deterministic, so a queued job is not duplicated) and promotes one still
 * delayed. A timer of the worker process, not a repeatable job, which a flush would erase too.
 */
@Injectable()
export class TestAlertSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('test-alert-sweeper');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly testAlerts: TestAlertsRepository,
    private readonly jobs: TestAlertJobs,
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

  async sweep(): Promise<void> {
    const due = await this.testAlerts.due(this.clock.now(), SWEEP_LIMIT);
    if (due.length === 0) return;
    await this.jobs.enqueue(due.map((d) => ({ alertId: d.alert_id, resolveAt: d.resolve_at })));
    await this.jobs.promote(due.map((d) => d.alert_id));
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
