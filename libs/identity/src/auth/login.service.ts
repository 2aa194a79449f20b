import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@platform/core';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import type { Account } from '../entities.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';
import { LoginOriginsRepository } from '../security/login-origins.repository.js';
import { SecurityNotices } from '../security/security-notices.js';
import { LoginThrottle } from './login-throttle.js';
import { PasswordHasher } from './passwords.js';
import { SessionTokens } from './session-tokens.js';
import { SessionsRepository } from './sessions.repository.js';

export interface LoginResult {
  account: Account;
  token: string;
  expiresAt: Date;
}

@Injectable()
export class LoginService {
  private readonly logger = new Logger('login');

  constructor(
    private readonly passwords: PasswordHasher,
    private readonly clock: Clock,
    private readonly accounts: AccountsRepository,
    private readonly throttle: LoginThrottle,
    private readonly sessions: SessionTokens,
    private readonly sessionStore: SessionsRepository,
    private readonly origins: LoginOriginsRepository,
    private readonly notices: SecurityNotices,
  ) {}

  /**
   * A wrong password and an unknown login fail alike, in the same time. The attempt is counted
   * (by login and client address) before the password is checked, so concurrent guesses
   * cannot outrun the throttle. The failure that locks an existing account tells the account;
   * so does a login from an address or user agent the account has not used for 90 days.
   */
  async login(
    login: string,
    password: string,
    address: string | null,
    userAgent: string | null = null,
  ): Promise<LoginResult> {
    const attempt = await this.throttle.take(login, address);
    let account: Account | null;
    let valid: boolean;
    try {
      account = await this.accounts.findByLogin(login);
      valid = account
        ? await this.passwords.verify(account.passwordHash, password)
        : (await this.passwords.burn(password), false);
    } catch (error) {
      await attempt.abandoned().catch(() => undefined);
      throw error;
    }
    if (!account || !valid) {
      if (account) this.notices.tellIfLocked(account.id, attempt);
      throw new IdentityException(
        IdentityErrorCode.InvalidCredentials,
        'Invalid login or password',
      );
    }
    await attempt.succeeded();
    if (!account.emailVerifiedAt) {
      throw new IdentityException(
        IdentityErrorCode.EmailNotVerified,
        'Verify your e-mail address before logging in',
      );
    }
    await this.noteOrigin(account, address, userAgent);
    return this.startSession(account);
  }

  /**
   * Records where the account logged in from. A first login tells nothing (there is nothing
   * to compare with); afterwards an address or user agent unseen for 90 days is told. Losing
   * the record (the database failing here) loses the notice, not the login.
   */
  private async noteOrigin(
    account: Account,
    address: string | null,
    userAgent: string | null,
  ): Promise<void> {
    try {
      const seen = await this.origins.record(account.id, address, userAgent, this.clock.now());
      if (!seen.loggedInBefore || (seen.addressKnown && seen.userAgentKnown)) return;
      this.notices.tell({
        event: 'login_from_new_origin',
        accountId: account.id,
        organizationId: null,
        path: '/password-reset',
        details: {
          new_address: !seen.addressKnown,
          new_user_agent: !seen.userAgentKnown,
        },
        origin: { address, userAgent },
      });
    } catch (error) {
      this.logger.warn(
        `login origin of account ${account.id} not recorded: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }

  /** A new session for an account whose password was just checked. */
  async startSession(account: Account): Promise<LoginResult> {
    const { token, claims } = await this.sessions.issue(account.id, account.sessionsValidAfter);
    return { account, token, expiresAt: claims.expiresAt };
  }

  /**
   * Ends the presented sessions: each JWT of ours that has not expired is refused from now on,
   * on every replica. Anything else (an expired or foreign value) needs no ending.
   */
  async logout(jwts: string[]): Promise<void> {
    for (const jwt of jwts) {
      const claims = await this.sessions.verify(jwt);
      if (claims) await this.sessionStore.revoke(claims, this.clock.now());
    }
  }
}
