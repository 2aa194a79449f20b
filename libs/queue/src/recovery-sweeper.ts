import {
  BeforeApplicationShutdown,
  Inject,
  Logger,
  OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { Dependencies, unavailableDependency } from '@platform/core';

/**
 * Recovers queued work that Redis lost (a flush, a failover, an enqueue that failed after a
 * commit) from the database, which holds the truth: `sweep()` runs on worker start and then
 * every `intervalMs`, never twice at once. It is a timer of the worker process rather than a
 * BullMQ repeatable job, which a Redis flush would erase with everything else; jobs carry
 * deterministic ids, so a sweep does not duplicate work still queued. While PostgreSQL or Redis
 * is down the sweeps pause (an outage is logged once, by Dependencies); on shutdown a running
 * sweep finishes before the connections close.
 */
export abstract class RecoverySweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  protected readonly logger: Logger;

  @Optional()
  @Inject(Dependencies)
  private readonly dependencies?: Dependencies;

  protected constructor(
    name: string,
    private readonly intervalMs: number,
  ) {
    this.logger = new Logger(name);
  }

  /** One sweep; resolves when it is done. */
  abstract sweep(): Promise<void>;

  onApplicationBootstrap(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    if (
      this.dependencies &&
      !(this.dependencies.isUp('database') && this.dependencies.isUp('redis'))
    )
      return;
    this.running = this.sweep()
      .catch((error: Error) => {
        const dependency = unavailableDependency(error);
        if (dependency) this.dependencies?.reportFailure(dependency, error);
        else this.logger.warn(`sweep failed: ${error.message}`);
      })
      .finally(() => {
        this.running = null;
      });
  }
}
