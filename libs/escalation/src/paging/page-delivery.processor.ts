import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Batcher, Clock } from '@platform/core';
import { Mailer } from '@platform/mail';
import {
  attemptDelivery,
  ChannelRegistry,
  type DeliveryOutcome,
  NotifyService,
  type Receipt,
  type RecordOutcome,
  type SkippedSend,
} from '@platform/notifications';
import { JobName, type JobPayloads, OnJob } from '@platform/queue';
import type { Job } from 'bullmq';
import { issuedAt, signToken } from '../acknowledgement/signed-link.js';
import { type PagedAlert, pageEmail, pageSms, pageTwiml } from './page-content.js';
import { type PageSettlement, PagesRepository, type PageToDeliver } from './pages.repository.js';

/** What a delivery job answers (kept with the completed job for inspection). */
export type PageDeliveryResult =
  | { outcome: 'sent'; providerSid?: string }
  | { outcome: 'skipped' | 'failed'; reason: string }
  | { outcome: 'done' };

/**
 * What a page's in-app notification and e-mail are: that page. A page delivered again (its
 * first delivery not recorded before a crash) finds its notification written and keeps it, and
 * sends its e-mail under the same Message-ID.
 */
export function pageKey(pageId: string): string {
  return `escalation-page/${pageId}`;
}

/**
 * Deliveries running together (a burst of pages) share their database work: the pages read,
 * the in-app notifications created and the settlements written while a batch is in flight go
 * out as the next one, in one statement each instead of one per page.
 */
const batched = <T, R>(run: (items: T[]) => Promise<R[]>) =>
  new Batcher<T, R>(run, { maxBatch: 100, intervalMs: 0 });

/**
 * Delivers one escalation page (job `{pageId}`). A page that is no longer pending (or gone with
 * its alert) is done: a repeated job sends nothing. A page still pending after a delivery that
 * did not get to record its outcome (a crash in between) is delivered again: its in-app
 * notification stays the one written (exactly once), its e-mail is queued once while the first
 * job is kept and keeps its Message-ID (at least once, the same message). A page whose
 * escalation was acknowledged or resolved before delivery is skipped (`escalation_halted`):
 * nobody is called about an alert somebody already took.
 *
 * - in_app: a notification of category alert_escalation (event alert_escalation) through the
 *   notification center, in-app only (the other channels are pages of their own); skipped with
 *   the delivery rule's reason when the account turned in-app off and is no org admin.
 * - email: to the account's login, with the signed acknowledgement link; sent means handed
 *   to the mail queue, which retries SMTP on its own.
 * - phone: a call whose TwiML gathers one digit posted to the signed phone-ack callback.
 * - sms: a text with the page's reply code.
 *
 * Accounts are called and texted only on a verified number (else skipped,
 * `phone_not_verified`); contacts on their own number. A page whose account is gone is
 * skipped (`recipient_gone`). Sending goes through the channels and the one retry model
 * (attemptDelivery): without a phone provider a phone or SMS page fails at once
 * (`phone_provider_not_configured`), since retrying cannot help; any other failure counts an
 * attempt, keeps its message as reason and is rethrown so BullMQ retries with backoff; the final
 * attempt marks the page failed.
 *
 * Each job is one page, so BullMQ keeps a page from being delivered twice at once; the jobs
 * that run together share their database work (see `batched`), and a failed batch fails each
 * of its jobs, which BullMQ retries alone.
 */
@Injectable()
export class PageDeliveryProcessor {
  private readonly logger = new Logger('escalation-pages');
  private readonly pagesById = batched(async (ids: string[]) => {
    const found = new Map((await this.pages.findMany(ids)).map((page) => [page.id, page]));
    return ids.map((id) => found.get(id) ?? null);
  });
  private readonly inAppPages = batched((pages: PageToDeliver[]) => this.deliverInApp(pages));
  private readonly settlements = batched(
    async (settlements: Array<{ pageId: string; outcome: PageSettlement }>) => {
      const recorded = await this.pages.settleMany(settlements);
      return settlements.map(({ pageId }) => recorded.has(pageId));
    },
  );

  constructor(
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly pages: PagesRepository,
    private readonly notifications: NotifyService,
    private readonly mailer: Mailer,
    private readonly channels: ChannelRegistry,
  ) {}

  @OnJob(JobName.EscalationPage)
  async deliver(
    data: JobPayloads[JobName.EscalationPage],
    job?: Pick<Job, 'attemptsMade' | 'opts'>,
  ): Promise<PageDeliveryResult> {
    const page = await this.pagesById.add(data.pageId);
    if (!page || page.status !== 'pending') return { outcome: 'done' };
    const outcome = await this.send(page, job, (settled) => this.settle(page, settled));
    if (outcome.status === 'sent') {
      const providerSid = outcome.receipt?.providerRef;
      return providerSid ? { outcome: 'sent', providerSid } : { outcome: 'sent' };
    }
    return { outcome: outcome.status as 'skipped' | 'failed', reason: outcome.reason ?? '' };
  }

  /** One attempt over the page's channel, or the skip the page itself calls for. */
  private send(
    page: PageToDeliver,
    job: Pick<Job, 'attemptsMade' | 'opts'> | undefined,
    record: RecordOutcome,
  ): Promise<DeliveryOutcome> {
    const attempt = (send: () => Promise<Receipt | SkippedSend>) =>
      attemptDelivery(this.channels.get(page.channel), send, job, record, this.logger);
    const skip = skipReason(page);
    if (skip) return attempt(async () => skip);
    const alert: PagedAlert = {
      alertId: page.alert_id,
      projectName: page.project_name,
      severity: page.severity,
      fingerprint: page.fingerprint,
      alertname: page.alertname,
      summary: page.summary,
    };
    switch (page.channel) {
      case 'in_app':
        return attempt(() => this.inAppPages.add(page));
      case 'email':
        return attempt(() => this.email(page, alert));
      case 'phone': {
        const to = pageNumber(page)!;
        const twiml = pageTwiml(alert, this.phoneAckUrl(page.id));
        return attempt(() => this.channels.get('phone').send({ to, twiml }));
      }
      case 'sms': {
        const to = pageNumber(page)!;
        const body = pageSms(alert, page.reply_code);
        return attempt(() => this.channels.get('sms').send({ to, body }));
      }
    }
  }

  /**
   * In-app pages, one notification each (category alert_escalation) through notify(), which
   * applies the account's rules, created together.
   */
  private async deliverInApp(
    pages: readonly PageToDeliver[],
  ): Promise<Array<Receipt | SkippedSend>> {
    const deliverable = pages.filter((page) => page.account_id && page.account_login !== null);
    const outcomes = await this.notifications.notifyEach(
      deliverable.map((page) => ({
        category: 'alert_escalation',
        eventType: 'alert_escalation',
        organizationId: page.organization_id,
        recipients: [page.account_id!],
        channels: ['in_app'],
        idempotencyKey: pageKey(page.id),
        payload: {
          alert_id: page.alert_id,
          escalation_instance_id: page.instance_id,
          step_index: page.step_index,
          severity: page.severity,
          alertname: page.alertname,
          summary: page.summary,
          project_id: page.project_id,
        },
      })),
    );
    const outcomeOf = new Map(deliverable.map((page, n) => [page, outcomes[n][0]]));
    return pages.map((page) => {
      // Not deliverable, or the account is gone.
      const outcome = outcomeOf.get(page);
      if (!outcome) return { skipped: 'recipient_gone' };
      if (!outcome.notificationId)
        return { skipped: outcome.decision.reasons[0] ?? 'in_app_disabled' };
      return { providerRef: null };
    });
  }

  /**
   * Queued for the e-mail channel's job under the page's key: a page delivered again (its
   * outcome not recorded before a crash) queues nothing new while the first job is kept, and a
   * message sent again keeps its Message-ID.
   */
  private async email(page: PageToDeliver, alert: PagedAlert): Promise<Receipt> {
    const token = signToken(this.config.secretKey, 'ack_link', {
      a: page.alert_id,
      u: page.account_id!,
      i: page.instance_id,
      t: issuedAt(this.clock.now()),
    });
    const link = `${this.config.publicUrl}/alerts/ack/${token}`;
    await this.mailer.send({
      to: page.account_login!,
      ...pageEmail(alert, link, this.config.signedLinkTtlSeconds),
      messageKey: pageKey(page.id),
    });
    return { providerRef: null, address: page.account_login };
  }

  private phoneAckUrl(pageId: string): string {
    const token = signToken(this.config.secretKey, 'phone_ack', {
      p: pageId,
      t: issuedAt(this.clock.now()),
    });
    return `${this.config.publicUrl}/alerts/phone_ack/${token}`;
  }

  private async settle(page: PageToDeliver, outcome: DeliveryOutcome): Promise<void> {
    const recorded = await this.settlements.add({
      pageId: page.id,
      outcome: {
        status: outcome.status,
        reason: outcome.reason,
        attempted: outcome.attempted,
        providerSid: outcome.receipt?.providerRef ?? null,
        // The number dialled or texted, kept so an SMS reply finds its page.
        phoneNumber:
          outcome.status === 'sent' && (page.channel === 'phone' || page.channel === 'sms')
            ? pageNumber(page)
            : null,
        at: this.clock.now(),
      },
    });
    if (!recorded) this.logger.warn(`page ${page.id} was settled meanwhile`);
  }
}

/**
 * Why the page is not sent at all, decided from the page alone: nobody is called about an alert
 * somebody already took, a recipient that is gone gets nothing, and an account is called and
 * texted only on a number verified now (a number changed since the page was written is used
 * once verified again).
 */
function skipReason(page: PageToDeliver): SkippedSend | null {
  if (page.instance_state === 'acknowledged' || page.instance_state === 'resolved')
    return { skipped: 'escalation_halted' };
  // In-app pages learn it in their batch, and settle with it (see deliverInApp).
  if (page.channel === 'in_app') return null;
  if (page.contact_label === null && page.account_login === null)
    return { skipped: 'recipient_gone' };
  if (page.channel === 'phone' || page.channel === 'sms') {
    if (page.contact_label === null && !pageNumber(page)) return { skipped: 'phone_not_verified' };
    if (!pageNumber(page)) return { skipped: 'recipient_gone' };
  }
  return null;
}

/** The number a phone or SMS page goes to: the contact's, or the account's verified one. */
function pageNumber(page: PageToDeliver): string | null {
  if (page.contact_label !== null) return page.phone_number;
  return page.account_phone_verified ? page.account_phone_number : null;
}
