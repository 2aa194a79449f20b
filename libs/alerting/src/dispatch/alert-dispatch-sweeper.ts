import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { JobName, JobQueue, RecoverySweeper } from '@platform/queue';
import { DISPATCH_JOB_OPTIONS } from './dispatch-jobs.js';
import {
  AlertDispatchSweepRepository,
  type OwedEvent,
  type SweepMark,
} from './alert-dispatch-sweep.repository.js';

/** Events younger than this are left to the ingest's own dispatch job. */
export const SWEEP_GRACE_MS = 30_000;
/** How long an owed event is enqueued again before it is given up (and logged). */
export const SWEEP_GIVE_UP_MS = 24 * 3_600_000;
/** How long after enqueueing an owed event it is checked (and, still owed, enqueued) again. */
export const SWEEP_RETRY_MS = 60_000;
/** Events one statement reads; a sweep reads at most SWEEP_PAGES pages of each kind. */
const PAGE = 5_000;
const SWEEP_PAGES = 20;
/** Alerts one swept dispatch job carries. */
const JOB_ALERTS = 1_000;

/**
 * The outbox of alert dispatch: finds first-firing and resolution notifications that an
 * ingest committed but whose `alerts.dispatch` job never ran to its claim (Redis failed at the
 * enqueue, the process died after the commit, or the job failed every attempt), and enqueues
 * them again. Every ALERT_DISPATCH_SWEEP_INTERVAL_MS (0: off), on the worker:
 *
 * 1. It reads the fired, refired and resolved timeline events after its mark (kept in
 *    PostgreSQL, so a restarted worker goes on where it left; never further back than
 *    SWEEP_GIVE_UP_MS) and older than SWEEP_GRACE_MS by the clock (younger ones are the
 *    ingest's own job's), and records those still owed in
 *    `alert_dispatch_owed` while moving the mark past them, in one statement per page. Owed:
 *    a firing that is the alert's current episode, still firing, with no dispatch claim; a
 *    resolution of a claimed episode, still resolved, whose resolution nobody claimed.
 * 2. It checks the recorded events due for an attempt again, drops those a dispatch has
 *    claimed since (or that stopped being owed: resolved, refired), and enqueues the rest,
 *    grouped per project, as `alerts.dispatch` jobs of at most JOB_ALERTS alerts whose id
 *    names their first event, so repeated sweeps add nothing while a job waits; each is
 *    attempted again SWEEP_RETRY_MS later, until claimed. An event still owed SWEEP_GIVE_UP_MS
 *    after it happened is given up, with a warning naming it.
 *
 * Dispatch claims each firing episode and each resolution once, so a swept job that races the
 * ingest's own job, or another sweep's, sends nothing twice. When Redis is down the enqueue
 * fails and the sweep ends there; recorded events stay due, and the next sweep tries again.
 */
@Injectable()
export class AlertDispatchSweeper extends RecoverySweeper {
  private readonly log = new Logger('alert-dispatch-sweeper');
  private warnedStaleMark = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly repository: AlertDispatchSweepRepository,
    private readonly queue: JobQueue,
  ) {
    super('alert-dispatch-sweeper', config.alertDispatchSweepIntervalMs);
  }

  static jobId(firstEventId: string): string {
    return `alerts-dispatch-owed-${firstEventId}`;
  }

  /** ALERT_DISPATCH_SWEEP_INTERVAL_MS=0 turns the timer off; `sweep()` still works. */
  override onApplicationBootstrap(): void {
    if (this.config.alertDispatchSweepIntervalMs > 0) super.onApplicationBootstrap();
  }

  async sweep(): Promise<void> {
    const now = this.clock.now();
    await this.scan(now);
    await this.dispatchOwed(now);
  }

  /**
   * Step 1: records the owed events among those written since the mark. A mark older than
   * SWEEP_GIVE_UP_MS (never swept, or no sweep for that long) starts at that bound instead:
   * what lies before it would be given up anyway.
   */
  private async scan(now: Date): Promise<void> {
    const upTo = new Date(now.getTime() - SWEEP_GRACE_MS);
    const floor: SweepMark = {
      at: new Date(now.getTime() - SWEEP_GIVE_UP_MS),
      eventId: '00000000-0000-0000-0000-000000000000',
    };
    const stored = await this.repository.mark();
    let mark = stored && stored.at >= floor.at ? stored : floor;
    // Once per process: on a quiet system the mark stays behind until an event comes.
    if (stored && mark === floor && !this.warnedStaleMark) {
      this.warnedStaleMark = true;
      this.log.warn(
        `the dispatch sweep's mark is older than ${SWEEP_GIVE_UP_MS / 3_600_000} h (${stored.at.toISOString()}): events before ${floor.at.toISOString()} are not checked`,
      );
    }
    for (let page = 0; page < SWEEP_PAGES; page += 1) {
      const { scanned, last } = await this.repository.scan(mark, upTo, PAGE, now);
      if (!last || scanned < PAGE) return;
      mark = last;
    }
  }

  /** Step 2: enqueues the recorded events still owed, and gives up the oldest. */
  private async dispatchOwed(now: Date): Promise<void> {
    const giveUpBefore = new Date(now.getTime() - SWEEP_GIVE_UP_MS);
    for (let page = 0; page < SWEEP_PAGES; page += 1) {
      const checked = await this.repository.due(now, PAGE, giveUpBefore);
      const owed = checked.filter((event) => event.owed);
      const givenUp = owed.filter((event) => event.event_at < giveUpBefore);
      if (givenUp.length > 0) this.giveUp(givenUp);
      const pending = owed.filter((event) => event.event_at >= giveUpBefore);
      await this.enqueue(pending);
      await this.repository.deferred(
        pending.map((event) => event.event_id),
        new Date(now.getTime() + SWEEP_RETRY_MS),
      );
      if (checked.length < PAGE) return;
    }
  }

  private async enqueue(events: readonly OwedEvent[]): Promise<void> {
    const byProject = new Map<string, OwedEvent[]>();
    for (const event of events) {
      const list = byProject.get(event.project_id) ?? [];
      list.push(event);
      byProject.set(event.project_id, list);
    }
    const jobs = [...byProject].flatMap(([projectId, list]) => {
      const chunks: OwedEvent[][] = [];
      for (let i = 0; i < list.length; i += JOB_ALERTS) chunks.push(list.slice(i, i + JOB_ALERTS));
      return chunks.map((chunk) => ({
        data: {
          projectId,
          fired: chunk.filter((e) => e.kind !== 'resolved').map((e) => e.alert_id),
          resolved: chunk.filter((e) => e.kind === 'resolved').map((e) => e.alert_id),
        },
        options: {
          ...DISPATCH_JOB_OPTIONS,
          jobId: AlertDispatchSweeper.jobId(chunk[0].event_id),
          // Gone once done, so a later sweep can enqueue what a failed job left owed.
          removeOnComplete: true,
          removeOnFail: true,
        },
      }));
    });
    if (jobs.length === 0) return;
    await this.queue.enqueueBulk(JobName.AlertDispatch, jobs);
    this.log.log(`enqueued the dispatch of ${events.length} owed alert event(s)`);
  }

  private giveUp(events: readonly OwedEvent[]): void {
    const listed = events
      .slice(0, 20)
      .map((e) => `${e.kind} ${e.event_id} of alert ${e.alert_id} (project ${e.project_id})`)
      .join('; ');
    const more = events.length > 20 ? ` and ${events.length - 20} more` : '';
    this.log.warn(
      `gave up ${events.length} alert event(s) still not dispatched ${SWEEP_GIVE_UP_MS / 3_600_000} h after they happened: ${listed}${more}`,
    );
  }
}
