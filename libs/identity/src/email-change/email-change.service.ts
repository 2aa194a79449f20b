import { Inject, Injectable } from '@nestjs/common';
import { actorOf, AuditLog } from '@platform/audit';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { Mailer } from '@platform/mail';
import { RATE_LIMITS, RateLimiter } from '@platform/rate-limits';
import { DataSource, type EntityManager } from 'typeorm';
import type { Principal } from '../access/principal.js';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import { loginKey } from '../accounts/login-key.js';
import { Reauthentication } from '../auth/reauthentication.js';
import { randomSecret, sha256 } from '../auth/secrets.js';
import { IdentityErrorCode, IdentityException, notFound } from '../identity-exception.js';
import { MembershipsRepository } from '../organizations/memberships.repository.js';
import { PasswordResetRepository } from '../passwords/password-reset.repository.js';
import { SecurityNotices } from '../security/security-notices.js';
import { EMAIL_CHANGE_TTL_HOURS, emailChangeConfirmation } from './email-change-mail.js';
import { EmailChangeRepository } from './email-change.repository.js';
import type { EmailChangedResponseDto, PendingEmailChangeResponseDto } from './email-change.dto.js';

const loginTaken = () =>
  new IdentityException(IdentityErrorCode.LoginTaken, 'An account with this e-mail address exists');

const invalidToken = () =>
  new IdentityException(
    IdentityErrorCode.InvalidVerificationToken,
    'The confirmation token is unknown, used, replaced by a newer one or expired',
  );

function unchanged(): InstanceType<typeof IdentityException> {
  const message = 'email is the address of this account already';
  return new IdentityException(IdentityErrorCode.ValidationFailed, message, {
    details: { fields: [{ field: 'email', messages: [message] }] },
  });
}

/**
 * Changing an account's e-mail address, which is also its login, as GitHub and GitLab do it:
 *
 * - `PUT /accounts/me/email` needs the current password (a wrong one is a failed login of the
 *   account, as for a password change) and stores the one pending change of the account,
 *   replacing an earlier one (whose link stops working). The link goes to the NEW address,
 *   valid 24 hours; the account keeps its address until the link is opened.
 * - Confirming (`POST /accounts/me/email/verify`, or the link opened in a signed-in browser)
 *   needs a session of the account that asked: another account's token is unknown here. It
 *   makes the new address the login, verified, and tells the OLD address (e-mail) and the
 *   account (in-app) through an `email_changed` security notice, under the delivery rules of
 *   every security notice (e-mailed at once, unless the account turned security e-mail off).
 *   A reset link mailed to the old address stops working.
 * - Sessions and static tokens stay, as on GitHub: the change was proven with the password
 *   and the new mailbox, and the notice to the old address is the alarm if it was not the
 *   owner. (A password change, by contrast, ends every other session.)
 * - An address another account holds is refused (409 `login_taken`) when asked and again when
 *   confirmed; the first of two accounts to confirm the same address wins it.
 * - Counted per account and per new address (429 `rate_limited`): nobody floods a mailbox
 *   through us.
 * - Every organization of the account gets an audit entry `accounts.email_change`.
 */
@Injectable()
export class EmailChangeService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly accounts: AccountsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly changes: EmailChangeRepository,
    private readonly resets: PasswordResetRepository,
    private readonly reauthentication: Reauthentication,
    private readonly mailer: Mailer,
    private readonly limits: RateLimiter,
    private readonly audit: AuditLog,
    private readonly notices: SecurityNotices,
  ) {}

  async request(
    principal: Principal,
    email: string,
    currentPassword: string,
  ): Promise<PendingEmailChangeResponseDto> {
    const account = await this.reauthentication.confirmPassword(
      principal.account.id,
      currentPassword,
    );
    const address = email.trim();
    if (address === account.login) throw unchanged();
    await this.limits.take(
      { rule: RATE_LIMITS.emailChangesPerAccount, key: account.id },
      { rule: RATE_LIMITS.emailChangesPerAddress, key: loginKey(address) },
    );
    // Another spelling of the account's own address (a change of case) is no conflict.
    const holder = await this.accounts.findByLogin(address);
    if (holder && holder.id !== account.id) throw loginTaken();
    const token = randomSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + EMAIL_CHANGE_TTL_HOURS * 3600_000);
    await this.changes.replace(
      account.id,
      { email: address, tokenHash: sha256(token), expiresAt },
      now,
    );
    await this.mailer.send(
      emailChangeConfirmation({
        publicUrl: this.config.publicUrl,
        to: address,
        name: account.name,
        token,
      }),
    );
    return { email: address, expires_at: expiresAt };
  }

  async confirm(principal: Principal, token: string): Promise<EmailChangedResponseDto> {
    const accountId = principal.account.id;
    const now = this.clock.now();
    const organizationIds = (await this.memberships.listForAccount(accountId)).map(
      (m) => m.organization_id,
    );
    const { previous, email } = await this.dataSource.transaction(async (manager) => {
      const pending = await this.changes.findForUpdate(manager, accountId, sha256(token));
      if (!pending || pending.expiresAt <= now) throw invalidToken();
      // Serializes with a signup or another confirmation of the same address.
      await this.accounts.lockLogin(manager, pending.email);
      const holder = await this.accounts.findByLogin(pending.email, manager);
      if (holder && holder.id !== accountId) throw loginTaken();
      const previousLogin = await this.accounts
        .changeLogin(manager, accountId, pending.email, now)
        .catch((error: unknown) => {
          throw (error as { code?: string }).code === '23505' ? loginTaken() : error;
        });
      if (previousLogin === null) throw invalidToken();
      await this.changes.remove(accountId, manager);
      await this.resets.cancel(manager, accountId);
      await this.auditChange(manager, principal, organizationIds, previousLogin, pending.email);
      return { previous: previousLogin, email: pending.email };
    });
    this.notices.tell({
      event: 'email_changed',
      accountId,
      organizationId: null,
      path: '/accounts/me',
      details: { previous_email: previous, email },
      emailTo: previous,
    });
    return { email, email_verified: true };
  }

  /** Cancels the pending change; 404 when there is none (an expired one counts as none). */
  async cancel(accountId: string): Promise<void> {
    const removed = await this.changes.remove(accountId);
    if (!removed || removed.expiresAt <= this.clock.now())
      throw notFound('Pending e-mail address change');
  }

  /** An account-wide event: an entry in every organization of the account, for its admins. */
  private async auditChange(
    manager: EntityManager,
    principal: Principal,
    organizationIds: string[],
    previousEmail: string,
    email: string,
  ): Promise<void> {
    for (const organizationId of organizationIds) {
      await this.audit.record(
        {
          actor: actorOf(principal),
          action: 'accounts.email_change',
          organizationId,
          projectId: null,
          target: { type: 'account', id: principal.account.id },
          details: { previous_email: previousEmail, email },
        },
        manager,
      );
    }
  }
}
