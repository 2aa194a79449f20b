import { Injectable } from '@nestjs/common';
import { JobQueue, type QueueName } from '@platform/queue';

/** The longest a batch of e-mails, calls or texts waits for in-app work to finish. */
export const IN_APP_HEAD_START_MS = 2_000;
/** How often the in-app queue is looked at while other workers still run its jobs. */
const QUEUE_POLL_MS = 50;

/**
 * In-app notifications go out ahead of e-mail, calls and texts: a batch of the other channels
 * waits (`turn`) while in-app deliveries run in this process (`inApp`) or the in-app queue has
 * jobs waiting or running on any worker, at most IN_APP_HEAD_START_MS so that a long run of
 * in-app work never starves it. A burst's e-mails cost several times the CPU of its in-app rows;
 * sent side by side with them they held the in-app frames back by seconds (bench:escalation in
 * docs/performance.md), and they gain little from starting first. Redis unreachable: no wait.
 */
@Injectable()
export class InAppFirst {
  private running = 0;
  private waiting: Array<() => void> = [];

  constructor(private readonly queue: JobQueue) {}

  /** Runs in-app delivery work: the other channels' batches wait while any runs. */
  async inApp<R>(work: () => Promise<R>): Promise<R> {
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      if (this.running === 0) this.release();
    }
  }

  /**
   * Resolves once no in-app work runs here and `inAppQueue` has no job waiting or running, or
   * after `maxWaitMs`.
   */
  async turn(inAppQueue: QueueName, maxWaitMs = IN_APP_HEAD_START_MS): Promise<void> {
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      if (this.running > 0) await this.released(left);
      else if ((await this.queue.unfinished(inAppQueue).catch(() => 0)) === 0) return;
      else await this.released(Math.min(QUEUE_POLL_MS, left));
    }
  }

  /** Resolves when this process's in-app work is over, or after `ms`. */
  private released(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const go = () => {
        clearTimeout(timer);
        this.waiting = this.waiting.filter((waiter) => waiter !== go);
        resolve();
      };
      const timer = setTimeout(go, ms);
      timer.unref();
      this.waiting.push(go);
    });
  }

  private release(): void {
    for (const go of [...this.waiting]) go();
  }
}
