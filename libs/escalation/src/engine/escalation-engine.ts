import { randomInt } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import {
  AlertEventKind,
  AlertEventsRepository,
  EscalationOpener,
  type EscalationOpening,
} from '@platform/alerting';
import { Clock } from '@platform/core';
import type { EntityManager } from 'typeorm';
import type { PageRecipient } from '../chains/chain-snapshot.js';
import { StepTargetResolver } from '../chains/step-targets.js';
import {
  EscalationInstancesRepository,
  type InstanceAdvance,
  type InstanceRow,
  type NewPage,
} from './escalation-instances.repository.js';
import { EscalationJobs } from './escalation-jobs.js';

/** Due steps taken per transaction: large enough for bursts, small enough to commit quickly. */
export const STEP_BATCH = 500;
/** Batches one run executes at once (SKIP LOCKED keeps them apart; the pool holds 10). */
const PARALLEL_BATCHES = 4;

const addSeconds = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000);

/** Where an instance goes after running the step it stands on (due at `dueAt`). */
export function nextPosition(
  instance: Pick<
    InstanceRow,
    'steps_count' | 'repeats' | 'next_delay' | 'first_delay' | 'repeat_count' | 'step_index'
  >,
  dueAt: Date,
): Pick<InstanceAdvance, 'state' | 'repeat_count' | 'step_index' | 'next_run_at'> {
  const next = instance.step_index + 1;
  if (next < instance.steps_count)
    return {
      state: 'active',
      repeat_count: instance.repeat_count,
      step_index: next,
      next_run_at: addSeconds(dueAt, instance.next_delay ?? 0),
    };
  if (instance.repeat_count < instance.repeats)
    return {
      state: 'active',
      repeat_count: instance.repeat_count + 1,
      step_index: 0,
      next_run_at: addSeconds(dueAt, instance.first_delay),
    };
  return {
    state: 'exhausted',
    repeat_count: instance.repeat_count,
    step_index: instance.step_index,
    next_run_at: null,
  };
}

/**
 * Runs escalation instances.
 *
 * An instance opens per firing episode that a route with a chain notified, keeping a snapshot of
 * the chain. Its state lives in PostgreSQL: the step it stands on, when that step is due, the
 * pass (`repeat_count`) and the generation (bumped by each re-escalation). Every step run has one
 * BullMQ delayed job with a deterministic id; the job runs every step due by then, in batches
 * claimed with `FOR UPDATE SKIP LOCKED`, so a burst of due steps is taken by whichever jobs run
 * first and the rest find nothing left. Executing a step writes its pages (the outbox that page
 * delivery drains) and the instance's next position in one transaction: a step is paged once,
 * and a crash before the commit leaves it due for the next job or the sweeper. The write path
 * is kept to those two statements so a burst of due steps is paged quickly; each page's ledger
 * row and `paged` timeline event are written when it is delivered.
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

  constructor(
    private readonly clock: Clock,
    private readonly instances: EscalationInstancesRepository,
    private readonly targets: StepTargetResolver,
    private readonly timeline: AlertEventsRepository,
    private readonly jobs: EscalationJobs,
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
   * Runs every step due now, batch after batch; answers how many steps ran. The jobs the
   * batches call for (their pages, the next steps) are enqueued once every due step is paged:
   * enqueueing competes with the batches for this process, and a page is safe once written.
   */
  async runDue(): Promise<number> {
    const pageIds: string[] = [];
    const next = new Set<number>();
    const loop = async () => {
      let total = 0;
      for (;;) {
        const batch = await this.runBatch();
        pageIds.push(...batch.pageIds);
        for (const dueAt of batch.next) next.add(dueAt.getTime());
        total += batch.ran;
        if (batch.ran < STEP_BATCH) return total;
      }
    };
    const totals = await Promise.all(Array.from({ length: PARALLEL_BATCHES }, loop));
    // A lost enqueue leaves a pending page or a due step for the sweeper.
    await Promise.all([
      this.jobs
        .pages(pageIds)
        .catch((error: Error) =>
          this.logger.warn(`pages not enqueued (the sweeper will): ${error.message}`),
        ),
      this.schedule([...next].map((ms) => new Date(ms))),
    ]);
    return totals.reduce((a, b) => a + b, 0);
  }

  /** Restarts an acknowledged instance from step 1 if its alert still fires. */
  async reEscalate(instanceId: string, generation: number): Promise<void> {
    const restarted = await this.instances.restart(instanceId, generation, this.clock.now());
    if (!restarted) return;
    await this.schedule([restarted.next_run_at]);
  }

  private async runBatch(): Promise<{ ran: number; pageIds: string[]; next: Date[] }> {
    const now = this.clock.now();
    return this.instances.transaction(async (manager) => {
      const due = await this.instances.claimDue(manager, now, STEP_BATCH);
      if (due.length === 0) return { ran: 0, pageIds: [], next: [] as Date[] };
      const firing = due.filter((i) => i.alert_status === 'firing');
      const recipients = await this.targets.resolve(
        firing.map((i) => ({
          organizationId: i.organization_id,
          step: i.step,
        })),
        now,
      );
      const pages = await this.pagesOf(manager, firing, recipients);
      const pageIds = await this.instances.insertPages(manager, pages, now);
      const advances: InstanceAdvance[] = due.map((i) =>
        i.alert_status === 'firing'
          ? { id: i.id, ...nextPosition(i, i.next_run_at) }
          : {
              id: i.id,
              state: 'resolved',
              repeat_count: i.repeat_count,
              step_index: i.step_index,
              next_run_at: null,
            },
      );
      await this.instances.advance(manager, advances, now);
      await this.timeline.record(this.exhaustions(due, advances, now), manager);
      const next = advances.filter((a) => a.state === 'active').map((a) => a.next_run_at!);
      return { ran: due.length, pageIds, next };
    });
  }

  private async pagesOf(
    manager: EntityManager,
    instances: readonly InstanceRow[],
    recipients: readonly PageRecipient[][],
  ): Promise<NewPage[]> {
    const phoned = new Set<string>();
    instances.forEach((instance, n) => {
      const { step } = instance;
      if (!step.channels.some((c) => c === 'phone' || c === 'sms')) return;
      for (const r of recipients[n]) if (r.kind === 'account') phoned.add(r.accountId);
    });
    const phones = await this.instances.verifiedPhones(manager, [...phoned]);

    const pages: NewPage[] = [];
    instances.forEach((instance, n) => {
      const { step } = instance;
      for (const recipient of recipients[n]) {
        for (const channel of step.channels) {
          const byPhone = channel === 'phone' || channel === 'sms';
          // External contacts have only a number: in-app and e-mail cannot reach them.
          if (recipient.kind === 'contact' && !byPhone) continue;
          pages.push({
            instanceId: instance.id,
            projectId: instance.project_id,
            alertId: instance.alert_id,
            generation: instance.generation,
            repeatCount: instance.repeat_count,
            stepIndex: instance.step_index,
            channel,
            accountId: recipient.kind === 'account' ? recipient.accountId : null,
            contactLabel: recipient.kind === 'contact' ? recipient.label : null,
            phoneNumber: !byPhone
              ? null
              : recipient.kind === 'contact'
                ? recipient.phoneNumber
                : (phones.get(recipient.accountId) ?? null),
            replyCode: channel === 'sms' ? String(randomInt(100_000, 1_000_000)) : null,
            dueAt: instance.next_run_at,
          });
        }
      }
    });
    return pages;
  }

  /** Exhaustion is the one thing a step run records on the timeline; pages are recorded as delivered. */
  private exhaustions(due: readonly InstanceRow[], advances: readonly InstanceAdvance[], at: Date) {
    const exhausted = new Set(advances.filter((a) => a.state === 'exhausted').map((a) => a.id));
    return due
      .filter((instance) => exhausted.has(instance.id))
      .map((instance) => ({
        alertId: instance.alert_id,
        projectId: instance.project_id,
        kind: AlertEventKind.EscalationExhausted,
        details: { escalation_instance_id: instance.id },
        at,
      }));
  }

  private async schedule(dueAts: readonly Date[]): Promise<void> {
    await this.jobs
      .steps(dueAts)
      .catch((error: Error) =>
        this.logger.warn(`steps not enqueued (the sweeper will): ${error.message}`),
      );
  }
}
