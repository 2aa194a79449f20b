import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { Principal } from '../access/principal.js';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import type { Account } from '../entities.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';
import { LoginThrottle } from './login-throttle.js';
import { SecurityNotices } from '../security/security-notices.js';
import { PasswordHasher } from './passwords.js';

/** A session this young counts as a fresh login for minting static tokens. */
export const REAUTHENTICATION_WINDOW_SECONDS = 15 * 60;

/**
 * The account holder proving it is them again: the current password, or a login so recent
 * that it was proof enough. A stolen session JWT can therefore neither change the password nor
 * mint long-lived tokens without the password, and guessing the password through these
 * routes counts against the same throttle as /login.
 */
@Injectable()
export class Reauthentication {
  constructor(
    private readonly passwords: PasswordHasher,
    private readonly clock: Clock,
    private readonly accounts: AccountsRepository,
    private readonly throttle: LoginThrottle,
    private readonly notices: SecurityNotices,
  ) {}

  /**
   * The account, once `password` (the body's `current_password`) is its password; a wrong one
   * answers 422 `validation_failed` naming the field, and counts as a failed login of the
   * account (429 `too_many_attempts` after five).
   */
  async confirmPassword(accountId: string, password: string): Promise<Account> {
    const account = await this.accounts.findWithPasswordHash(accountId);
    if (!account) throw new IdentityException(IdentityErrorCode.Unauthorized, 'No such account');
    const attempt = await this.throttle.take(account.login, null);
    let valid: boolean;
    try {
      valid = await this.passwords.verify(account.passwordHash, password);
    } catch (error) {
      await attempt.abandoned().catch(() => undefined);
      throw error;
    }
    if (!valid) {
      this.notices.tellIfLocked(account.id, attempt);
      const message = 'current_password is not the password of this account';
      throw new IdentityException(IdentityErrorCode.ValidationFailed, message, {
        details: { fields: [{ field: 'current_password', messages: [message] }] },
      });
    }
    await attempt.succeeded();
    return account;
  }

  /**
   * Lets a session mint a static token when it is younger than 15 minutes or brings the
   * current password (which is checked whenever it is sent); otherwise 403
   * `reauthentication_required`. A static token is no session: the rule is not for it.
   */
  async assertFreshOrPassword(principal: Principal, currentPassword?: string): Promise<void> {
    if (!principal.session) return;
    if (currentPassword !== undefined) {
      await this.confirmPassword(principal.account.id, currentPassword);
      return;
    }
    const age = this.clock.nowMs() - principal.session.issuedAt.getTime();
    if (age < REAUTHENTICATION_WINDOW_SECONDS * 1000) return;
    throw new IdentityException(
      IdentityErrorCode.ReauthenticationRequired,
      'This session is older than 15 minutes: log in again or send current_password',
    );
  }
}
