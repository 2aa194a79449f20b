import { Injectable } from '@nestjs/common';
import { JobName, type JobPayloads, OnJob, type SecurityEvent } from '@platform/queue';
import { NotifyService } from '../notify/notify.service.js';
import { RecipientsRepository } from '../notify/recipients.repository.js';

type SecurityNoticeJob = JobPayloads[JobName.SecurityNotice];

const RESET_ADVICE =
  'If this was not you, reset your password at once and revoke tokens you do not know.';

/**
 * The e-mail subject and first sentence of each event, and what to do if it was not the
 * reader (`advice`, default RESET_ADVICE).
 */
const WORDING: Record<SecurityEvent, { subject: string; summary: string; advice?: string }> = {
  login_from_new_origin: {
    subject: 'New sign-in to your account',
    summary:
      'Your account was signed in to from an address or browser it has not used in the last 90 days.',
  },
  password_changed: {
    subject: 'Your password was changed',
    summary: 'The password of your account was changed; every other session was ended.',
  },
  password_reset: {
    subject: 'Your password was reset',
    summary: 'The password of your account was reset through a reset link; every session ended.',
  },
  token_created: {
    subject: 'An API token was created',
    summary: 'A static API token was created in your name.',
  },
  token_revoked: {
    subject: 'An API token was revoked',
    summary: 'A static API token of yours was revoked; it no longer works.',
  },
  email_changed: {
    subject: 'Your e-mail address was changed',
    summary:
      'The e-mail address of your account was changed; it is the login of the account now, and no mail reaches this address any more.',
    // Reset links go to the new address now, so the old address cannot win the account back.
    advice:
      'If this was not you, contact your platform administrator at once: password reset links now go to the new address.',
  },
  phone_changed: {
    subject: 'Your phone number was changed',
    summary: 'A new phone number was verified for your account; calls and texts go to it now.',
  },
  phone_removed: {
    subject: 'Your phone number was removed',
    summary: 'The phone number of your account was removed; no calls or texts reach you now.',
  },
  membership_role_changed: {
    subject: 'A membership role was changed',
    summary: 'The role of a membership in your organization was changed.',
  },
  account_locked: {
    subject: 'Sign-ins to your account are blocked for a while',
    summary:
      'Too many wrong passwords were tried for your account: sign-ins are refused until the 15-minute window ends.',
  },
};

/** The notification's payload: what, when, from where, the page, and the event's facts. */
export function securityPayload(job: SecurityNoticeJob): Record<string, unknown> {
  return {
    ...job.details,
    event: job.event,
    occurred_at: job.at,
    address: job.address,
    user_agent: job.userAgent,
    link: job.link,
  };
}

export function securityEmail(job: SecurityNoticeJob): { subject: string; text: string } {
  const { subject, summary, advice = RESET_ADVICE } = WORDING[job.event];
  const facts = Object.entries(job.details).map(([key, value]) => `${key}: ${String(value)}`);
  const text = [
    summary,
    '',
    `When: ${job.at}`,
    `From: ${job.address ?? 'an unknown address'} (${job.userAgent ?? 'unknown user agent'})`,
    ...facts,
    '',
    `Review it here: ${job.link}`,
    '',
    advice,
  ].join('\n');
  return { subject, text };
}

/**
 * Turns the SecurityNotice jobs that identity enqueues (it cannot notify itself: this library
 * depends on it) into `security` notifications: to the account, and to the organization's
 * admins when the job says so. The account's e-mail goes to the job's `emailTo` when it names
 * one (an `email_changed` notice reaches the address the account left, not its new login). The notice id is the idempotency key, so a job retried after a
 * crash writes no second in-app row.
 */
@Injectable()
export class SecurityNoticeProcessor {
  constructor(
    private readonly notifications: NotifyService,
    private readonly recipients: RecipientsRepository,
  ) {}

  @OnJob(JobName.SecurityNotice)
  async deliver(job: SecurityNoticeJob): Promise<number> {
    const admins =
      job.organizationAdmins && job.organizationId
        ? await this.recipients.organizationAdmins(job.organizationId)
        : [];
    const outcomes = await this.notifications.notify({
      category: 'security',
      eventType: job.event,
      organizationId: job.organizationId,
      recipients: [job.accountId, ...admins],
      payload: securityPayload(job),
      email: securityEmail(job),
      emailTo: job.emailTo ? { [job.accountId]: job.emailTo } : undefined,
      idempotencyKey: `security/${job.noticeId}`,
    });
    return outcomes.length;
  }
}
