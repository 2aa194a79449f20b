import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock, RequestContexts } from '@platform/core';
import { JobName, JobQueue, type SecurityEvent } from '@platform/queue';
import { LOGIN_FAILURE_WINDOW_SECONDS, MAX_LOGIN_FAILURES } from '../auth/login-throttle.js';

/** What happened, to whom; when and from where are taken from the clock and the request. */
export interface SecurityNotice {
  event: SecurityEvent;
  accountId: string;
  /** The organization the event concerns; null for the account's own settings and logins. */
  organizationId: string | null;
  /** The organization's admins are told too (they answer for its memberships). */
  organizationAdmins?: boolean;
  /** The page to look at, as a path under PUBLIC_URL (e.g. `/password-reset`). */
  path: string;
  /** The facts of the event: names and ids, never a password, token, link or code. */
  details?: Record<string, string | number | boolean | null>;
  /** From where, when not the request being served (a request answers for itself). */
  origin?: { address: string | null; userAgent: string | null };
  /** The address to e-mail instead of the account's login (the one it just left). */
  emailTo?: string;
}

/**
 * Tells an account about a security event through the worker (the `security` notification
 * category). The notifications library depends on identity, so identity cannot notify
 * directly; it enqueues a SecurityNotice job that the notifications worker turns into
 * `notify()`. The enqueue is not awaited by the request: a slow Redis never slows a login, and
 * a Redis outage never fails one (the notice is logged as lost instead).
 */
@Injectable()
export class SecurityNotices implements OnApplicationShutdown {
  private readonly logger = new Logger('security-notices');
  private readonly pending = new Set<Promise<void>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly jobs: JobQueue,
  ) {}

  tell(notice: SecurityNotice): void {
    const context = RequestContexts.current();
    const origin = notice.origin ?? {
      address: context?.clientAddress ?? null,
      userAgent: context?.userAgent ?? null,
    };
    const work = this.jobs
      .enqueue(
        JobName.SecurityNotice,
        {
          noticeId: randomUUID(),
          event: notice.event,
          accountId: notice.accountId,
          organizationId: notice.organizationId,
          organizationAdmins: notice.organizationAdmins ?? false,
          at: this.clock.now().toISOString(),
          address: origin.address,
          userAgent: origin.userAgent,
          link: `${this.config.publicUrl}${notice.path}`,
          details: notice.details ?? {},
          ...(notice.emailTo ? { emailTo: notice.emailTo } : {}),
        },
        { attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true },
      )
      .then(
        () => undefined,
        (error: unknown) =>
          this.logger.warn(
            `security notice ${notice.event} for account ${notice.accountId} was not queued: ${
              error instanceof Error ? error.message : String(error)
            }`,
          ),
      )
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /**
   * The failure that filled the login's counter locked the account (429 `too_many_attempts`
   * until the window ends): the account hears of it once per lock.
   */
  tellIfLocked(accountId: string, attempt: { fillsLoginCounter: boolean }): void {
    if (!attempt.fillsLoginCounter) return;
    this.tell({
      event: 'account_locked',
      accountId,
      organizationId: null,
      path: '/password-reset',
      details: {
        failed_attempts: MAX_LOGIN_FAILURES,
        window_minutes: LOGIN_FAILURE_WINDOW_SECONDS / 60,
      },
    });
  }

  /** Resolves once every notice told so far is queued (or given up). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.settled();
  }
}
