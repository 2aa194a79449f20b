import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  APP_CONFIG,
  type AppConfig,
  Clock,
  forEachConcurrently,
  MetricsService,
} from '@platform/core';
import {
  attemptDelivery,
  ChannelRegistry,
  type DeliveryOutcome,
  InAppFirst,
  NotifyService,
  type Receipt,
  type SkippedSend,
} from '@platform/notifications';
import { DeferJob, JobName, type JobPayloads, OnJob, QueueName } from '@platform/queue';
import type { Job } from 'bullmq';
import { issuedAt, signToken } from '../acknowledgement/signed-link.js';
import { EscalationJobs } from '../engine/escalation-jobs.js';
import { OutcomesBehind } from './outcomes-behind.js';
import {
  deferred,
  isFinal,
  type PageDeliveryResult,
  pageNumber,
  resultOf,
  skipReason,
} from './page-outcomes.js';

import { type PagedAlert, pageEmail, pageSms, pageTwiml } from './page-content.js';
import { PAGE_CATEGORY, pageKey } from './page-notification.js';
import { type PageSettlement, PagesRepository, type PageToDeliver } from './pages.repository.js';

export type { PageDeliveryResult } from './page-outcomes.js';

/** Attempts a page gets over every channel: 2 s doubling, about four minutes in all. */
export const PAGE_ATTEMPTS = 8;
const RETRY_BASE_MS = 2_000;
/** Pages of one batch sent at once over e-mail, phone and SMS (in-app pages go as one). */
const SEND_CONCURRENCY = 50;

/** How long a page waits after its `attempts`-th failed attempt. */
export function pageRetryDelayMs(attempts: number): number {
  return RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1);
}

export { pageKey } from './page-notification.js';

/**
 * Delivers escalation pages a batch at a time (job `{pageIds}`): a burst's pages are claimed and
 * read in one statement, their in-app notifications written and pushed in one notifyEach (one
 * insert, one Redis pipeline), their e-mails, calls and texts sent side by side over the pooled
 * connections, and the outcomes settled in one statement per job (calls, texts and retries) or
 * behind the burst (in-app and e-mail pages' final outcomes: OutcomesBehind), while each page
 * keeps its own outcome, attempts and retry.
 *
 * - Claiming keeps two deliveries of a page apart (the engine's batch and the sweeper's retry):
 *   only a pending page unclaimed, claimed by this job before (its BullMQ retry), or claimed so
 *   long ago that its delivery crashed is taken; the others are `done` for this job.
 * - A page whose escalation was acknowledged or resolved is skipped (`escalation_halted`):
 *   nobody is called about an alert somebody already took. A page whose account is gone is
 *   skipped (`recipient_gone`); accounts are called and texted only on a verified number
 *   (`phone_not_verified`), contacts on their own.
 * - in_app: a notification of category alert_escalation through notify(), in-app only, skipped
 *   with the delivery rule's reason when the account turned in-app off and is no org admin. The
 *   step statement notifies most in-app pages itself (StepNotifications); a page job delivers
 *   those a rule withholds, and any page delivered again.
 * - email: to the account's login with the signed acknowledgement link; sent means the SMTP
 *   server accepted it.
 * - phone: a call whose TwiML gathers one digit posted to the signed phone-ack callback.
 * - sms: a text with the page's reply code.
 *
 * Every send goes through the channels and the one retry model (attemptDelivery), with the
 * page's own attempts: a final failure (no phone provider, an SMTP 5xx) fails the page at once;
 * any other failure leaves it pending with its reason and next attempt time, and a job of its own
 * tries it again after 2 s doubling; the PAGE_ATTEMPTS-th failure fails it. A rate limit defers
 * the page without counting an attempt. A page delivered again after a crash between sending
 * and settling notifies once (the notification's idempotency key) and mails the same message
 * (the page's Message-ID); a call or text goes out again.
 */
@Injectable()
export class PageDeliveryProcessor {
  private readonly logger = new Logger('escalation-pages');

  constructor(
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly pages: PagesRepository,
    private readonly notifications: NotifyService,
    private readonly channels: ChannelRegistry,
    private readonly jobs: EscalationJobs,
    private readonly outcomesBehind: OutcomesBehind,
    private readonly inAppFirst: InAppFirst,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  /**
   * E-mail, phone and SMS pages: the same delivery, on a queue of their own, started once the
   * in-app pages queued before them are out (InAppFirst).
   */
  @OnJob(JobName.EscalationPageSends)
  async runSends(
    data: JobPayloads[JobName.EscalationPageSends],
    job?: Pick<Job, 'id'>,
  ): Promise<Record<string, number>> {
    await this.inAppFirst.turn(QueueName.Pages);
    return this.runJob(data.pageIds, job);
  }

  /** In-app pages (and their retries). */
  @OnJob(JobName.EscalationPages)
  run(
    data: JobPayloads[JobName.EscalationPages],
    job?: Pick<Job, 'id'>,
  ): Promise<Record<string, number>> {
    return this.inAppFirst.inApp(() => this.runJob(data.pageIds, job));
  }

  /** The job's result: how many pages ended how (each page's outcome is in its row). */
  private async runJob(
    pageIds: readonly string[],
    job: Pick<Job, 'id'> | undefined,
  ): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    const results = await this.outcomesBehind.busy(() => this.deliverPages(pageIds, job, true));
    for (const { outcome } of results) counts[outcome] = (counts[outcome] ?? 0) + 1;
    return counts;
  }

  /** Delivers the pages and records every outcome; answers each page's result, in order. */
  deliver(
    data: JobPayloads[JobName.EscalationPages],
    job?: Pick<Job, 'id'>,
  ): Promise<PageDeliveryResult[]> {
    return this.deliverPages(data.pageIds, job, false);
  }

  /**
   * With `behind`, the final outcomes of in-app and e-mail pages are recorded behind the job (see
   * OutcomesBehind), so the next batches' notifications and e-mails are not kept waiting by this
   * one's bookkeeping.
   */
  private async deliverPages(
    pageIds: readonly string[],
    job: Pick<Job, 'id'> | undefined,
    behind: boolean,
  ): Promise<PageDeliveryResult[]> {
    // A run without a job (a direct call) claims for itself alone.
    const claimant = job?.id ?? `direct-${randomUUID()}`;
    const claimed = await this.pages.claimMany(pageIds, claimant, this.clock.now());
    const settlements = new Map<string, PageSettlement>();
    const results = new Map<string, PageDeliveryResult>();
    const inApp = claimed.filter((page) => page.channel === 'in_app' && !skipReason(page));
    const inAppIds = new Set(inApp.map((page) => page.id));
    const others = claimed.filter((page) => !inAppIds.has(page.id));
    await Promise.all([
      this.sendAll(inApp, this.inAppReceipts(inApp), settlements, results),
      this.sendAll(others, null, settlements, results),
    ]);
    const later = behind
      ? claimed.filter(
          (page) =>
            (page.channel === 'in_app' || page.channel === 'email') &&
            isFinal(settlements.get(page.id)!),
        )
      : [];
    const laterIds = new Set(later.map((page) => page.id));
    this.outcomesBehind.record(
      later.map((page) => ({
        pageId: page.id,
        outcome: settlements.get(page.id)!,
        claimant,
      })),
    );
    await this.settle(
      claimed.filter((page) => !laterIds.has(page.id)),
      settlements,
      claimant,
    );
    return pageIds.map((id) => results.get(id) ?? { outcome: 'done' });
  }

  /**
   * One attempt per page: e-mails, calls and texts SEND_CONCURRENCY at a time, in-app pages all
   * at once from their batch's receipts. Records each outcome for the settlement and the result.
   */
  private async sendAll(
    pages: readonly PageToDeliver[],
    inAppReceipts: Promise<Map<string, Receipt | SkippedSend>> | null,
    settlements: Map<string, PageSettlement>,
    results: Map<string, PageDeliveryResult>,
  ): Promise<void> {
    const limit = inAppReceipts ? pages.length : SEND_CONCURRENCY;
    await forEachConcurrently(pages, limit, async (page) => {
      const send = inAppReceipts
        ? async () => (await inAppReceipts).get(page.id)!
        : this.sender(page);
      const { settlement, result } = await this.attempt(page, send);
      settlements.set(page.id, settlement);
      results.set(page.id, result);
    });
  }

  /** One attempt of the page under the one retry model, counted from the page's attempts. */
  private async attempt(
    page: PageToDeliver,
    send: () => Promise<Receipt | SkippedSend>,
  ): Promise<{ settlement: PageSettlement; result: PageDeliveryResult }> {
    const recorded: { outcome?: DeliveryOutcome } = {};
    const asJob = { attemptsMade: page.attempts, opts: { attempts: PAGE_ATTEMPTS } };
    try {
      const outcome = await attemptDelivery(
        this.channels.get(page.channel),
        send,
        asJob,
        async (outcome) => void (recorded.outcome = outcome),
        this.logger,
      );
      return { settlement: this.settlement(page, outcome), result: resultOf(outcome) };
    } catch (error) {
      const now = this.clock.now();
      if (error instanceof DeferJob) {
        const settlement = { ...deferred(error), at: now };
        const retryAt = new Date(now.getTime() + error.delayMs);
        return {
          settlement: { ...settlement, retryAt },
          result: { outcome: 'retry', reason: error.message, retryInMs: error.delayMs },
        };
      }
      // attemptDelivery recorded the failed attempt before rethrowing it: failed on the last.
      if (recorded.outcome?.status === 'failed')
        return {
          settlement: this.settlement(page, recorded.outcome),
          result: resultOf(recorded.outcome),
        };
      const outcome = recorded.outcome ?? {
        status: 'pending' as const,
        reason: String(error),
        attempted: true,
      };
      const retryInMs = pageRetryDelayMs(page.attempts + 1);
      return {
        settlement: {
          ...this.settlement(page, outcome),
          retryAt: new Date(now.getTime() + retryInMs),
        },
        result: { outcome: 'retry', reason: outcome.reason ?? '', retryInMs },
      };
    }
  }

  /** The send of a page over e-mail, phone or SMS, or the skip the page itself calls for. */
  private sender(page: PageToDeliver): () => Promise<Receipt | SkippedSend> {
    const skip = skipReason(page);
    if (skip) return async () => skip;
    const alert: PagedAlert = {
      alertId: page.alert_id,
      projectName: page.project_name,
      severity: page.severity,
      fingerprint: page.fingerprint,
      alertname: page.alertname,
      summary: page.summary,
    };
    switch (page.channel) {
      case 'email':
        return () => this.channels.get('email').send(this.email(page, alert));
      case 'phone': {
        const message = {
          to: pageNumber(page)!,
          twiml: pageTwiml(alert, this.phoneAckUrl(page.id)),
        };
        return () => this.channels.get('phone').send(message);
      }
      case 'sms': {
        const message = { to: pageNumber(page)!, body: pageSms(alert, page.reply_code) };
        return () => this.channels.get('sms').send(message);
      }
      case 'in_app':
        throw new Error('in-app pages are sent as a batch');
    }
  }

  /**
   * The in-app pages' notifications (category alert_escalation), created together through
   * notifyEach, which applies each account's rules: a receipt or the rule's skip per page.
   */
  private async inAppReceipts(
    pages: readonly PageToDeliver[],
  ): Promise<Map<string, Receipt | SkippedSend>> {
    const receipts = new Map<string, Receipt | SkippedSend>();
    const deliverable = pages.filter((page) => page.account_id && page.account_login !== null);
    for (const page of pages) receipts.set(page.id, { skipped: 'recipient_gone' });
    if (deliverable.length === 0) return receipts;
    const outcomes = await this.notifications.notifyEach(
      deliverable.map((page) => ({
        category: PAGE_CATEGORY,
        eventType: PAGE_CATEGORY,
        organizationId: page.organization_id,
        recipients: [page.account_id!],
        channels: ['in_app'],
        idempotencyKey: pageKey(page.id),
        payload: page.notification_payload!,
      })),
    );
    deliverable.forEach((page, n) => {
      const outcome = outcomes[n][0];
      if (!outcome) return;
      receipts.set(
        page.id,
        outcome.notificationId
          ? { providerRef: null }
          : { skipped: outcome.decision.reasons[0] ?? 'in_app_disabled' },
      );
    });
    return receipts;
  }

  /** The e-mail of a page: its Message-ID is the page's, so a repeat is the same message. */
  private email(page: PageToDeliver, alert: PagedAlert) {
    const token = signToken(this.config.secretKey, 'ack_link', {
      a: page.alert_id,
      u: page.account_id!,
      i: page.instance_id,
      t: issuedAt(this.clock.now()),
    });
    const link = `${this.config.publicUrl}/alerts/ack/${token}`;
    return {
      to: page.account_login!,
      ...pageEmail(alert, link, this.config.signedLinkTtlSeconds),
      messageKey: pageKey(page.id),
    };
  }

  private phoneAckUrl(pageId: string): string {
    const token = signToken(this.config.secretKey, 'phone_ack', {
      p: pageId,
      t: issuedAt(this.clock.now()),
    });
    return `${this.config.publicUrl}/alerts/phone_ack/${token}`;
  }

  private settlement(page: PageToDeliver, outcome: DeliveryOutcome): PageSettlement {
    const at = this.clock.now();
    if (outcome.status === 'sent')
      this.metrics?.observeDeliveryLatency(page.channel, 'escalation', page.due_at, at);
    return {
      status: outcome.status,
      reason: outcome.reason,
      attempted: outcome.attempted,
      providerSid: outcome.receipt?.providerRef ?? null,
      durationMs: outcome.durationMs,
      // The number dialled or texted, kept so an SMS reply finds its page.
      phoneNumber:
        outcome.status === 'sent' && (page.channel === 'phone' || page.channel === 'sms')
          ? pageNumber(page)
          : null,
      at,
    };
  }

  /**
   * Writes every outcome in one statement, then queues each page left pending for its retry. A
   * lost retry job is recovered by the sweeper once the page's next attempt time is well past.
   */
  private async settle(
    claimed: readonly PageToDeliver[],
    settlements: ReadonlyMap<string, PageSettlement>,
    claimant: string,
  ): Promise<void> {
    const recorded = await this.pages.settleMany(
      claimed.map((page) => ({
        pageId: page.id,
        outcome: settlements.get(page.id)!,
        claimant,
      })),
    );
    for (const page of claimed)
      if (!recorded.has(page.id)) this.logger.warn(`page ${page.id} was settled meanwhile`);
    const now = this.clock.now().getTime();
    const retries = claimed.flatMap((page) => {
      const settlement = settlements.get(page.id)!;
      if (settlement.status !== 'pending' || !recorded.has(page.id)) return [];
      const attempts = page.attempts + (settlement.attempted ? 1 : 0);
      const delayMs = (settlement.retryAt?.getTime() ?? now) - now;
      // A deferral counts no attempt: its job needs a name of its own.
      const tag = settlement.attempted ? undefined : `deferred-${now}`;
      return [{ pageId: page.id, inApp: page.channel === 'in_app', attempts, delayMs, tag }];
    });
    await this.jobs
      .pageRetries(retries)
      .catch((error: Error) =>
        this.logger.warn(`page retries not enqueued (the sweeper will): ${error.message}`),
      );
  }
}
