import { Injectable } from '@nestjs/common';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import type { Account } from '../entities.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';
import { LoginThrottle } from './login-throttle.js';
import { burnPasswordCheck, verifyPassword } from './passwords.js';
import { SessionTokens } from './session-tokens.js';

export interface LoginResult {
  account: Account;
  token: string;
  expiresAt: Date;
}

@Injectable()
export class LoginService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly throttle: LoginThrottle,
    private readonly sessions: SessionTokens,
  ) {}

  /** A wrong password and an unknown login fail alike, in the same time. */
  async login(login: string, password: string): Promise<LoginResult> {
    await this.throttle.assertAllowed(login);
    const account = await this.accounts.findByLogin(login);
    const valid = account
      ? await verifyPassword(account.passwordHash, password)
      : (await burnPasswordCheck(password), false);
    if (!account || !valid) {
      await this.throttle.recordFailure(login);
      throw new IdentityException(
        IdentityErrorCode.InvalidCredentials,
        'Invalid login or password',
      );
    }
    if (!account.emailVerifiedAt) {
      throw new IdentityException(
        IdentityErrorCode.EmailNotVerified,
        'Verify your e-mail address before logging in',
      );
    }
    await this.throttle.reset(login);
    const { token, expiresAt } = await this.sessions.issue(account.id);
    return { account, token, expiresAt };
  }
}
