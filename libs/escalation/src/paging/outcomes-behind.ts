import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EscalationJobs } from '../engine/escalation-jobs.js';
import { IdleWriter } from './idle-writer.js';
import { type ClaimedSettlement, PagesRepository } from './pages.repository.js';

/** The longest a page's final outcome waits for a pause in a burst before it is recorded. */
const RECORD_DELAY_MS = 5_000;

/**
 * Final outcomes of in-app and e-mail pages (sent, skipped, failed) recorded behind the work
 * that produced them (page jobs, and the step runs whose statements notify: see
 * StepNotifications): once this process's page work pauses and no page job waits or runs on
 * any worker (the page queues' counts), within RECORD_DELAY_MS during a long burst, a few large
 * statements, so a burst's notifications and e-mails go out first and its bookkeeping follows
 * (in a burst of 10,000 pages, a settle written between the steps and their e-mails, or beside
 * another worker's last e-mails, took the database from them; recording each sends job's
 * e-mails as it ended was a third of the database's work while the e-mails went out).
 *
 * Safe to lose (a crash, a failed write): the page stays pending. An in-app page is delivered
 * again by the sweeper, whose page job finds the notification by its idempotency key and
 * records it. An e-mail page stays claimed by the job that sent it until the sweeper finds that
 * job ended with the page still pending (FINISHED_CLAIM_MS after the claim), then is sent again
 * as the same message (its Message-ID), as after a crash between sending and recording. Calls and texts are recorded at once: a text's number must be
 * on its page before the reply comes, and a repeated call is no duplicate a client hides.
 */
@Injectable()
export class OutcomesBehind implements OnApplicationShutdown {
  private readonly logger = new Logger('escalation-pages');
  private readonly writer = new IdleWriter<ClaimedSettlement>(
    async (items) => {
      await this.pages.settleMany(items);
    },
    {
      maxBatch: 2_000,
      maxDelayMs: RECORD_DELAY_MS,
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

  record(settlements: readonly ClaimedSettlement[]): void {
    if (settlements.length === 0) return;
    const written = this.writer
      .add(settlements)
      .catch((error: Error) =>
        this.logger.warn(`page outcomes not recorded (the sweeper will): ${error.message}`),
      )
      .finally(() => this.writing.delete(written));
    this.writing.add(written);
  }

  /** Lets the outcomes recorded behind the jobs land before the process ends. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.writing]);
  }
}
