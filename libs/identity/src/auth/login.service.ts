import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import type { Account } from '../entities.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';
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
  constructor(
    private readonly passwords: PasswordHasher,
    private readonly clock: Clock,
    private readonly accounts: AccountsRepository,
    private readonly throttle: LoginThrottle,
    private readonly sessions: SessionTokens,
    private readonly sessionStore: SessionsRepository,
  ) {}

  /**
   * A wrong password and an unknown login fail alike, in the same time. The attempt is counted
   * (by login and client address) before the password is checked, so concurrent guesses
   * cannot outrun the throttle.
   */
  async login(login: string, password: string, address: string | null): Promise<LoginResult> {
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
    return this.startSession(account);
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
