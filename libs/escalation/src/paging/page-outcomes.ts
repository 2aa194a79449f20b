import type { DeliveryOutcome, SkippedSend } from '@platform/notifications';
import type { DeferJob } from '@platform/queue';
import type { PageSettlement, PageToDeliver } from './pages.repository.js';

/** What a delivery answers for each page it was given, in order. */
export type PageDeliveryResult =
  | { outcome: 'sent'; providerSid?: string }
  | { outcome: 'skipped' | 'failed'; reason: string }
  /** Left pending: tried again after `retryInMs` (a failed attempt, or a rate limit). */
  | { outcome: 'retry'; reason: string; retryInMs: number }
  /** Not delivered by this job: settled already, claimed by another delivery, or gone. */
  | { outcome: 'done' };

export function resultOf(outcome: DeliveryOutcome): PageDeliveryResult {
  if (outcome.status === 'sent') {
    const providerSid = outcome.receipt?.providerRef;
    return providerSid ? { outcome: 'sent', providerSid } : { outcome: 'sent' };
  }
  return { outcome: outcome.status as 'skipped' | 'failed', reason: outcome.reason ?? '' };
}

/** Whether the outcome ends the page's delivery (nothing left to retry). */
export function isFinal(settlement: PageSettlement): boolean {
  return settlement.status !== 'pending';
}

/** Settles in-app pages, which nobody claims (see PagesRepository.claimMany). */
export const IN_APP_CLAIMANT = 'in-app';

/** A rate limit's deferral: still pending, no attempt counted. */
export function deferred(error: DeferJob): Omit<PageSettlement, 'at'> {
  return { status: 'pending', reason: error.message, attempted: false };
}

/**
 * Why the page is not sent at all, decided from the page alone: nobody is called about an alert
 * somebody already took, a recipient that is gone gets nothing, and an account is called and
 * texted only on a number verified now (a number changed since the page was written is used
 * once verified again).
 */
export function skipReason(page: PageToDeliver): SkippedSend | null {
  if (page.instance_state === 'acknowledged' || page.instance_state === 'resolved')
    return { skipped: 'escalation_halted' };
  // In-app pages learn it in their batch (see inAppReceipts).
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
export function pageNumber(page: PageToDeliver): string | null {
  if (page.contact_label !== null) return page.phone_number;
  return page.account_phone_verified ? page.account_phone_number : null;
}
