import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { unavailableDependency } from '../errors/unavailable.js';
import { Dependencies } from './dependencies.js';

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

/**
 * Idempotent start-up work that needs PostgreSQL or Redis (job schedulers, seeds): run in the
 * background and retried with backoff (1 s doubling to 30 s) until it succeeds, so a process
 * whose dependencies are down still starts, serves its probes and catches up when they answer.
 * A failure is logged once per task (an outage once, by Dependencies). `run` answers once the
 * first attempt is over, so with its dependencies up a process starts with the work done.
 */
@Injectable()
export class StartupTasks implements OnApplicationShutdown {
  private readonly logger = new Logger('start-up');
  private stopped = false;

  constructor(private readonly dependencies: Dependencies) {}

  /** Starts `task`; resolves (never rejects) when its first attempt is over. */
  run(name: string, task: () => Promise<void>): Promise<void> {
    return new Promise((firstAttemptOver) => {
      void this.attempt(name, task, firstAttemptOver);
    });
  }

  onApplicationShutdown(): void {
    this.stopped = true;
  }

  private async attempt(
    name: string,
    task: () => Promise<void>,
    firstAttemptOver: () => void,
  ): Promise<void> {
    let delay = FIRST_RETRY_MS;
    let logged = false;
    while (!this.stopped) {
      try {
        await task();
        if (logged) this.logger.log(`${name}: done after retrying`);
        firstAttemptOver();
        return;
      } catch (error) {
        firstAttemptOver();
        const dependency = unavailableDependency(error);
        if (dependency) this.dependencies.reportFailure(dependency, error);
        else if (!logged) {
          this.logger.warn(`${name} failed, retrying: ${(error as Error).message}`);
        }
        logged = true;
      }
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }
}
