import { Injectable, Logger, Optional } from '@nestjs/common';
import { Clock, MetricsService } from '@platform/core';
import { InAppChannel } from '@platform/notifications';
import type { NotifiedPage } from '../engine/run-steps.js';
import { OutcomesBehind } from './outcomes-behind.js';
import { IN_APP_CLAIMANT } from './page-outcomes.js';
import { PAGE_CATEGORY } from './page-notification.js';

/**
 * The in-app pages a step statement wrote with their notifications (see RUN_STEPS), announced
 * as it commits: each notification pushed to the account's sockets with the unread counts, then
 * each page's outcome (sent) recorded behind the burst as a page job's in-app outcomes are
 * (OutcomesBehind) and its latency observed. The notification is the delivery: a push lost to
 * an outage or a crash leaves it for the account's next fetch, as any in-app push; an outcome
 * lost leaves the page pending for the sweeper, whose page job finds the notification by its
 * key and records it.
 */
@Injectable()
export class StepNotifications {
  private readonly logger = new Logger('escalation-pages');

  constructor(
    private readonly clock: Clock,
    private readonly inApp: InAppChannel,
    private readonly outcomes: OutcomesBehind,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  /** Runs a burst's step batches: the outcomes recorded behind them wait until they are done. */
  whileStepsRun<R>(run: () => Promise<R>): Promise<R> {
    return this.outcomes.busy(run);
  }

  /** `writtenAt`: the time the statement wrote the pages and notifications at. */
  async announce(pages: readonly NotifiedPage[], writtenAt: Date): Promise<void> {
    if (pages.length === 0) return;
    await this.inApp
      .announce(
        pages.map(({ notification: n }) => ({
          id: n.id,
          category: PAGE_CATEGORY,
          event_type: PAGE_CATEGORY,
          organization_id: n.organization_id,
          organization_name: n.organization_name,
          payload: n.payload,
          read_at: null,
          created_at: writtenAt,
          account_id: n.account_id,
          created: true,
        })),
      )
      .catch((error: Error) =>
        this.logger.warn(`in-app pages not pushed (read on the next fetch): ${error.message}`),
      );
    const at = this.clock.now();
    // One outcome for the batch: the pages wait behind the burst, and each object they hold is
    // copied by every scavenge meanwhile.
    const outcome = {
      status: 'sent' as const,
      reason: null,
      attempted: true,
      durationMs: at.getTime() - writtenAt.getTime(),
      at,
    };
    this.outcomes.record(
      pages.map((page) => ({ pageId: page.page_id, claimant: IN_APP_CLAIMANT, outcome })),
    );
    for (const page of pages)
      this.metrics?.observeDeliveryLatency('in_app', 'escalation', new Date(page.due_at), at);
  }
}
