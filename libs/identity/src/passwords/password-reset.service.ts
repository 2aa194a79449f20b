import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AuditLog } from '@platform/audit';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { Mailer } from '@platform/mail';
import { RATE_LIMITS, RateLimiter } from '@platform/rate-limits';
import { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import { loginKey } from '../accounts/login-key.js';
import { LoginThrottle } from '../auth/login-throttle.js';
import { PasswordHasher } from '../auth/passwords.js';
import { randomSecret, sha256 } from '../auth/secrets.js';
import { sessionsValidFrom } from '../auth/session-tokens.js';
import type { Account } from '../entities.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';
import { MembershipsRepository } from '../organizations/memberships.repository.js';
import { auditPasswordEvent } from './password-change.service.js';
import { PasswordResetRepository, type ResetTokenProblem } from './password-reset.repository.js';
import { SecurityNotices } from '../security/security-notices.js';

export const RESET_LINK_TTL_MINUTES = 60;
export const RESET_REQUESTED =
  'If an account with this login exists, we sent it an e-mail with a link to choose a new password.';
export const PASSWORD_RESET_DONE =
  'Your password was changed and every session of your account has ended. Log in with the new password.';

const PROBLEMS: Record<ResetTokenProblem, IdentityErrorCode> = {
  unknown: IdentityErrorCode.InvalidResetToken,
  used: IdentityErrorCode.ResetTokenUsed,
  expired: IdentityErrorCode.ResetTokenExpired,
};

const PROBLEM_MESSAGES: Record<ResetTokenProblem, string> = {
  unknown: 'The reset link is unknown or was replaced by a newer one',
  used: 'The reset link was already used',
  expired: 'The reset link has expired',
};

/**
 * `POST /password-reset` and `/password-reset/confirm`. A request is answered before anything
 * about the login is looked at: the lookup, the link and its e-mail happen afterwards, so the
 * answer (202, same body) and its timing are the same whether or not the account exists.
 */
@Injectable()
export class PasswordResetService implements OnApplicationShutdown {
  private readonly logger = new Logger('identity');
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly passwords: PasswordHasher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly accounts: AccountsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly resets: PasswordResetRepository,
    private readonly throttle: LoginThrottle,
    private readonly mailer: Mailer,
    private readonly audit: AuditLog,
    private readonly limits: RateLimiter,
    private readonly notices: SecurityNotices,
  ) {}

  /** Counted per login (existing or not) and per client address, before the answer. */
  async request(login: string, address: string | null): Promise<{ success: string }> {
    await this.limits.take(
      { rule: RATE_LIMITS.passwordResetPerLogin, key: loginKey(login) },
      this.limits.perAddress(RATE_LIMITS.passwordResetPerAddress, address),
    );
    const work = this.sendLink(login)
      .catch((error: unknown) =>
        this.logger.error(
          `password reset e-mail failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      )
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
    return { success: RESET_REQUESTED };
  }

  /** Resolves once every reset request received so far has been handled. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.settled();
  }

  /**
   * Sets the password, marks the link used, verifies the login (the link proves the
   * mailbox) and ends every session of the account; the login's failed attempts are forgiven.
   * An unknown or replaced link answers 422 `invalid_reset_token`, a used one 410
   * `reset_token_used`, an expired one 410 `reset_token_expired`.
   */
  async confirm(token: string, password: string): Promise<{ success: string }> {
    const tokenHash = sha256(token);
    const problem = await this.resets.problemWith(tokenHash, this.clock.now());
    if (problem) throw new IdentityException(PROBLEMS[problem], PROBLEM_MESSAGES[problem]);
    const passwordHash = await this.passwords.hash(password);
    const now = this.clock.now();
    const consumed = await this.dataSource.transaction(async (manager) => {
      const owner = await this.resets.consume(manager, tokenHash, now);
      // A concurrent confirmation of the same link got there first.
      if (!owner) throw new IdentityException(PROBLEMS.used, PROBLEM_MESSAGES.used);
      await this.accounts.changePassword(
        manager,
        owner.accountId,
        { passwordHash, sessionsValidAfter: sessionsValidFrom(now), verifyEmail: true },
        now,
      );
      const memberships = await this.memberships.listForAccount(owner.accountId);
      await auditPasswordEvent(this.audit, manager, {
        actor: { accountId: owner.accountId, credential: null },
        action: 'passwords.reset',
        accountId: owner.accountId,
        organizationIds: memberships.map((m) => m.organization_id),
      });
      return owner;
    });
    await this.throttle.forgive(consumed.login);
    this.notices.tell({
      event: 'password_reset',
      accountId: consumed.accountId,
      organizationId: null,
      path: '/password-reset',
    });
    return { success: PASSWORD_RESET_DONE };
  }

  private async sendLink(login: string): Promise<void> {
    const account = await this.accounts.findByLogin(login);
    if (!account) return;
    const token = randomSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + RESET_LINK_TTL_MINUTES * 60_000);
    await this.resets.replace(account.id, sha256(token), expiresAt, now);
    await this.mailResetLink(account, token);
  }

  private async mailResetLink(account: Account, token: string): Promise<void> {
    const link = `${this.config.publicUrl}/password-reset?token=${encodeURIComponent(token)}`;
    await this.mailer.send({
      to: account.login,
      subject: 'Reset your password',
      text: [
        `Hello ${account.name},`,
        '',
        'someone (hopefully you) asked to reset the password of your account. To choose a new',
        'password, open this link:',
        link,
        '',
        `Reset token: ${token}`,
        '',
        `The link is valid for ${RESET_LINK_TTL_MINUTES} minutes and can be used once; asking`,
        'again replaces it. Setting a new password ends every session of your account.',
        '',
        'If you did not ask for this, ignore this e-mail: your password stays as it is.',
      ].join('\n'),
    });
  }
}
