import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { unavailableDependency } from '../errors/unavailable.js';
import { retryUntilDone } from '../retry/retry-until-done.js';
import { Dependencies, type DependencyName } from './dependencies.js';

/**
 * Idempotent start-up work that needs PostgreSQL or Redis (job schedulers, seeds): run in the
 * background and retried with backoff (`retryUntilDone`: 1 s doubling to 30 s) until it
 * succeeds, so a process whose dependencies are down still starts, serves its probes and
 * catches up when they answer. A failure is logged once per task (an outage once, by
 * Dependencies). `run` answers once the first attempt is over (or after a second), so with its
 * dependencies up a process starts with the work done.
 */
/** How long start-up waits for a task's first attempt before it goes on without. */
const FIRST_ATTEMPT_WAIT_MS = 1000;

@Injectable()
export class StartupTasks implements OnApplicationShutdown {
  private readonly logger = new Logger('start-up');
  private readonly stopped = new AbortController();

  constructor(private readonly dependencies: Dependencies) {}

  /**
   * Starts `task`; resolves (never rejects) when its first attempt is over. With `againWhenBack`,
   * the task runs again each time that dependency answers after an outage or turns out to have
   * restarted: what it wrote there (a job schedule in a Redis that restarted empty) may be gone.
   */
  run(
    name: string,
    task: () => Promise<void>,
    options: { againWhenBack?: DependencyName } = {},
  ): Promise<void> {
    if (options.againWhenBack) {
      const dependency = options.againWhenBack;
      this.dependencies.onBack((back) => {
        if (back === dependency && !this.stopped.signal.aborted) void this.run(name, task);
      });
    }
    return new Promise((firstAttemptOver) => {
      // A dependency that does not answer makes the first attempt wait (for a time-out): the
      // process goes on starting meanwhile.
      setTimeout(firstAttemptOver, FIRST_ATTEMPT_WAIT_MS).unref();
      void retryUntilDone(
        async () => {
          try {
            await task();
          } finally {
            firstAttemptOver();
          }
        },
        {
          signal: this.stopped.signal,
          onFirstFailure: (error) => {
            const dependency = unavailableDependency(error);
            if (dependency) this.dependencies.reportFailure(dependency, error);
            else this.logger.warn(`${name} failed, retrying: ${(error as Error).message}`);
          },
          onRecovered: (failures) => this.logger.log(`${name}: done after ${failures} retries`),
        },
      );
    });
  }

  onApplicationShutdown(): void {
    this.stopped.abort();
  }
}
