import { Injectable, Logger } from '@nestjs/common';
import { AlertEventKind, EscalationOpener, type EscalationOpening } from '@platform/alerting';
import { Clock } from '@platform/core';
import { NotifyService } from '@platform/notifications';
import type { PageRecipient } from '../chains/chain-snapshot.js';
import { StepTargetResolver } from '../chains/step-targets.js';
import { PAGE_CATEGORY } from '../paging/page-notification.js';
import { StepNotifications } from '../paging/step-notifications.js';
import {
  EscalationInstancesRepository,
  type DueTarget,
  type TargetRecipient,
} from './escalation-instances.repository.js';
import { EscalationJobs } from './escalation-jobs.js';

/** Due steps taken per statement: large enough for bursts, small enough to commit quickly. */
export const STEP_BATCH = 1000;
/**
 * Batches one run executes at once (SKIP LOCKED keeps them apart): a batch is all PostgreSQL
 * work, so about one per core of the database; more only contend.
 */
const PARALLEL_BATCHES = 2;
/** Due steps whose targets a round resolves before running (the rest wait for the next round). */
const TARGETS_WINDOW = 2_000;
/** How long a round runs steps on the targets it resolved before resolving them again. */
const ROUND_MS = 2_000;

/** Whom the targets of a round page: every resolved key, and the recipients of each. */
interface ResolvedTargets {
  keys: string[];
  recipients: TargetRecipient[];
}

/**
 * Runs escalation instances.
 *
 * An instance opens per firing episode that a route with a chain notified, keeping a snapshot of
 * the chain. Its state lives in PostgreSQL: the step it stands on and when that step is due (its
 * due row), the pass (`repeat_count`) and the generation (bumped by each re-escalation). Every
 * step run has one BullMQ delayed job with a deterministic id; the job runs every step due by
 * then, in batches claimed with `FOR UPDATE SKIP LOCKED`, so a burst of due steps is taken by
 * whichever jobs run first and the rest find nothing left. Executing a step writes its pages (the
 * outbox that page delivery drains) and moves its due row on in one statement: a step is paged
 * once, and a crash before the commit leaves it due for the next job or the sweeper. Whom a step
 * pages is resolved per distinct target (a burst of thousands of steps has few) before its
 * batches run, with each account's in-app rule, so a batch is one statement that never leaves
 * PostgreSQL and writes the notifications of its in-app pages too; each page's ledger row and
 * `paged` timeline event are written when it is delivered.
 *
 * Each step is due its delay after the previous step was due (not after it ran), so lateness
 * does not accumulate. After the last step the chain starts over while passes remain
 * (`repeats`), else the instance is exhausted. An instance whose alert resolved stops as
 * resolved; acknowledgement halts it (see AcknowledgementsService) and, with
 * `re_escalation_after`, restarts it from step 1 after that window if the alert still fires.
 */
@Injectable()
export class EscalationEngine extends EscalationOpener {
  private readonly logger = new Logger('escalation');
  /** Targets resolved ahead of a due instant (see prepare), for the first run after it. */
  private prepared: { at: number; targets: Promise<ResolvedTargets | null> } | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly instances: EscalationInstancesRepository,
    private readonly targets: StepTargetResolver,
    private readonly jobs: EscalationJobs,
    private readonly notifications: NotifyService,
    private readonly stepNotifications: StepNotifications,
  ) {
    super();
  }

  /**
   * Opens instances for notified alerts. Enqueueing the first step happens after the insert
   * commits; if it is lost, the sweeper finds the step due.
   */
  async open(openings: readonly EscalationOpening[]): Promise<void> {
    if (openings.length === 0) return;
    const opened = await this.instances.open(openings, this.clock.now());
    await this.schedule(opened.map((o) => o.next_run_at));
  }

  /** Cancels the escalations of resolved alerts (their jobs find nothing due). */
  async resolved(projectId: string, alertIds: readonly string[]): Promise<void> {
    if (alertIds.length === 0) return;
    await this.instances.resolve(projectId, alertIds, this.clock.now());
  }

  /**
   * Runs every step due now, batch after batch; answers how many steps ran. A round resolves
   * the targets of the steps due first, then runs, in parallel batches, every due step with one
   * of those targets (and every step of a resolved alert); the next round picks up steps with
   * other targets, and re-resolves after ROUND_MS so a long backlog does not page by stale
   * rosters. A batch's in-app notifications, written by its statement, are pushed the moment it
   * commits, while the next batches run: in-app is the quickest way to reach someone (the in-app
   * pages a rule withholds go to page jobs, which record why). E-mails, calls and texts, and the
   * next steps, are queued once every due step is paged: sending them meanwhile would slow the
   * batches, and a page is safe once written.
   */
  async runDue(): Promise<number> {
    // The in-app outcomes wait for the batches: they are bookkeeping, the batches are pages.
    return this.stepNotifications.whileStepsRun(() => this.runRounds());
  }

  private async runRounds(): Promise<number> {
    const inAppQueued: Array<Promise<void>> = [];
    const pageIds: string[] = [];
    const next = new Set<number>();
    let total = 0;
    for (;;) {
      const started = this.clock.now();
      const targets = (await this.takePrepared(started)) ?? (await this.resolveDueTargets(started));
      /** Runs batches until none is left due (`more` false) or the round is over. */
      const loop = async () => {
        let ran = 0;
        for (;;) {
          const now = this.clock.now();
          const batch = await this.instances.runSteps(
            now,
            STEP_BATCH,
            targets.keys,
            targets.recipients,
            AlertEventKind.EscalationExhausted,
          );
          inAppQueued.push(
            this.stepNotifications.announce(batch.notified, now),
            this.queuePages(batch.in_app_page_ids, true),
          );
          pageIds.push(...batch.page_ids);
          for (const dueAt of batch.next_run_ats) next.add(dueAt.getTime());
          ran += batch.ran;
          // Steps left not run: their targets are new, for the next round.
          if (batch.ran < batch.locked) return { ran, more: true };
          // Fewer due rows than asked: none left.
          if (batch.locked < STEP_BATCH) return { ran, more: false };
          if (now.getTime() - started.getTime() >= ROUND_MS) return { ran, more: true };
        }
      };
      const lanes = await Promise.all(Array.from({ length: PARALLEL_BATCHES }, loop));
      const ran = lanes.reduce((sum, lane) => sum + lane.ran, 0);
      total += ran;
      if (ran === 0 || lanes.every((lane) => !lane.more)) break;
    }
    // A lost enqueue leaves a pending page or a due step for the sweeper.
    await Promise.all([
      ...inAppQueued,
      this.queuePages(pageIds, false),
      this.schedule([...next].map((ms) => new Date(ms))),
    ]);
    return total;
  }

  /** A lost enqueue leaves pending pages for the sweeper. */
  private async queuePages(pageIds: readonly string[], inApp: boolean): Promise<void> {
    await this.jobs
      .pages(pageIds, inApp)
      .catch((error: Error) =>
        this.logger.warn(`pages not enqueued (the sweeper will): ${error.message}`),
      );
  }

  /**
   * Resolves, while a step job waits for its due instant, whom the steps due by then page at
   * that instant, and readies the batch statement on as many pooled connections as a run uses
   * at once, so the run starting at the instant goes straight to its batches at full speed.
   * Steps that fall due meanwhile with other targets are resolved by the run's next round.
   */
  prepare(dueAt: Date): void {
    if (this.prepared?.at === dueAt.getTime()) return;
    const warmed = this.instances
      .warm(PARALLEL_BATCHES, AlertEventKind.EscalationExhausted)
      .catch((error: Error) => this.logger.warn(`batch statement not readied: ${error.message}`));
    const targets = this.resolveDueTargets(dueAt).catch((error: Error) => {
      this.logger.warn(`targets not resolved ahead (the run will): ${error.message}`);
      return null;
    });
    this.prepared = {
      at: dueAt.getTime(),
      targets: Promise.all([targets, warmed]).then(([resolved]) => resolved),
    };
  }

  /** The targets prepared for an instant that has come, unless they are older than a round. */
  private async takePrepared(now: Date): Promise<ResolvedTargets | null> {
    const prepared = this.prepared;
    if (!prepared || prepared.at > now.getTime()) return null;
    this.prepared = null;
    if (now.getTime() - prepared.at >= ROUND_MS) return null;
    return prepared.targets;
  }

  /** Restarts an acknowledged instance from step 1 if its alert still fires. */
  async reEscalate(instanceId: string, generation: number): Promise<void> {
    const restarted = await this.instances.restart(instanceId, generation, this.clock.now());
    if (!restarted) return;
    await this.schedule([restarted.next_run_at]);
  }

  /**
   * Whom the targets of the first due steps page at `at`: accounts (with their verified number,
   * for phone and SMS pages, and whether their in-app pages carry their notification) and
   * external contacts. A target that pages nobody is resolved too, so its steps run (and page
   * nobody).
   */
  private async resolveDueTargets(at: Date): Promise<ResolvedTargets> {
    const due = await this.instances.dueTargets(at, TARGETS_WINDOW);
    const resolved = await this.targets.resolve(
      due.map((t) => ({ organizationId: t.organization_id, step: t.step })),
      at,
    );
    // Steps sharing a target may page by different channels: every account gets its number.
    const accounts = new Set(
      resolved.flat().flatMap((r) => (r.kind === 'account' ? [r.accountId] : [])),
    );
    const [phones, notified] = await Promise.all([
      this.instances.verifiedPhones([...accounts]),
      this.inAppNotified(due, resolved),
    ]);
    const recipients: TargetRecipient[] = [];
    due.forEach((target, n) => {
      for (const r of resolved[n])
        recipients.push(
          r.kind === 'account'
            ? {
                targetKey: target.target_key,
                accountId: r.accountId,
                contactLabel: null,
                phoneNumber: phones.get(r.accountId) ?? null,
                notifyInApp: notified.has(`${target.organization_id}/${r.accountId}`),
              }
            : {
                targetKey: target.target_key,
                accountId: null,
                contactLabel: r.label,
                phoneNumber: r.phoneNumber,
                notifyInApp: false,
              },
        );
    });
    return { keys: due.map((t) => t.target_key), recipients };
  }

  /**
   * The accounts (`organization/account`) whose in-app pages the step statement notifies: those
   * the rules let through, decided as notifyEach decides, once per round for all its steps.
   */
  private async inAppNotified(
    due: readonly DueTarget[],
    resolved: ReadonlyArray<readonly PageRecipient[]>,
  ): Promise<Set<string>> {
    const accounts = new Map<string, Set<string>>();
    due.forEach((target, n) => {
      if (!target.step.channels.includes('in_app')) return;
      const ids = accounts.get(target.organization_id) ?? new Set<string>();
      for (const r of resolved[n]) if (r.kind === 'account') ids.add(r.accountId);
      accounts.set(target.organization_id, ids);
    });
    const groups = [...accounts].map(([organizationId, ids]) => ({
      organizationId,
      accountIds: [...ids],
    }));
    const decisions = await this.notifications.inAppDecisions(PAGE_CATEGORY, groups);
    const notified = new Set<string>();
    groups.forEach(({ organizationId }, n) => {
      for (const [accountId, decision] of decisions[n])
        if (decision.inApp) notified.add(`${organizationId}/${accountId}`);
    });
    return notified;
  }

  private async schedule(dueAts: readonly Date[]): Promise<void> {
    await this.jobs
      .steps(dueAts)
      .catch((error: Error) =>
        this.logger.warn(`steps not enqueued (the sweeper will): ${error.message}`),
      );
  }
}
