import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EscalationJobs } from '../engine/escalation-jobs.js';
import { IdleWriter } from './idle-writer.js';
import { IN_APP_CLAIMANT } from './page-outcomes.js';
import { type PageSettlement, PagesRepository } from './pages.repository.js';

/** The longest an in-app page's outcome waits for a pause in a burst before it is recorded. */
const IN_APP_RECORD_DELAY_MS = 5_000;

/**
 * In-app page outcomes recorded behind the work that sent them (page jobs, and the step runs
 * whose statements notify: see StepNotifications): once this process's page work pauses and no
 * page job waits or runs on any worker (the page queues' counts), within IN_APP_RECORD_DELAY_MS
 * during a long burst, a few large statements, so a burst's notifications and e-mails go out
 * first and its bookkeeping follows (in a burst of 10,000 pages, a settle written between the
 * steps and their e-mails, or beside another worker's last e-mails, took the database from
 * them). Safe to lose (a crash, a failed write): the page stays pending, the sweeper delivers it
 * again, and its notification's idempotency key makes that delivery find the notification
 * written and pushed, and record it.
 */
@Injectable()
export class InAppOutcomes implements OnApplicationShutdown {
  private readonly logger = new Logger('escalation-pages');
  private readonly writer = new IdleWriter<{ pageId: string; outcome: PageSettlement }>(
    async (items) => {
      // In-app pages are never claimed: any claimant settles them.
      await this.pages.settleMany(items, IN_APP_CLAIMANT);
    },
    {
      maxBatch: 2_000,
      maxDelayMs: IN_APP_RECORD_DELAY_MS,
      maxPending: 50_000,
      busyElsewhere: async () => (await this.jobs.pageJobsUnfinished()) > 0,
    },
  );
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly pages: PagesRepository,
    private readonly jobs: EscalationJobs,
  ) {}

  /** Runs page work (a page job, a run of steps): outcomes wait while any runs. */
  busy<R>(job: () => Promise<R>): Promise<R> {
    return this.writer.busy(job);
  }

  record(settlements: ReadonlyArray<{ pageId: string; outcome: PageSettlement }>): void {
    for (const settlement of settlements) {
      const written = this.writer
        .add(settlement)
        .catch((error: Error) =>
          this.logger.warn(`in-app page outcome not recorded (the sweeper will): ${error.message}`),
        )
        .finally(() => this.writing.delete(written));
      this.writing.add(written);
    }
  }

  /** Lets the outcomes recorded behind the jobs land before the process ends. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.writing]);
  }
}
