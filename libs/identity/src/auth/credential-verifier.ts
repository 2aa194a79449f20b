import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import type { Account, ApiToken } from '../entities.js';
import { MembershipsRepository } from '../organizations/memberships.repository.js';
import { TokensRepository } from '../tokens/tokens.repository.js';
import { sha256 } from './secrets.js';
import { SessionTokens } from './session-tokens.js';

/**
 * Turns a presented credential into an account, the same way for REST requests and WebSocket
 * handshakes. Null means "not a valid credential"; callers decide how to refuse.
 */
@Injectable()
export class CredentialVerifier {
  constructor(
    private readonly clock: Clock,
    private readonly sessions: SessionTokens,
    private readonly accounts: AccountsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly tokens: TokensRepository,
  ) {}

  /** A valid, unexpired session JWT of a verified account. */
  async session(jwt: string): Promise<{ account: Account; expiresAt: Date } | null> {
    const claims = jwt ? await this.sessions.verify(jwt) : null;
    if (!claims) return null;
    const account = await this.accounts.findById(claims.accountId);
    return account?.emailVerifiedAt ? { account, expiresAt: claims.expiresAt } : null;
  }

  /**
   * A live API token whose owner still belongs to its organization; records its use. Ingest
   * tokens only ever reach the ingest endpoint, which authenticates them itself.
   */
  async staticToken(raw: string): Promise<{ account: Account; token: ApiToken } | null> {
    const token = await this.tokens.findActiveByHash(sha256(raw));
    if (!token || token.kind !== 'api') return null;
    const account = await this.accounts.findById(token.accountId);
    if (!account?.emailVerifiedAt) return null;
    if (
      !account.isPlatformAdmin &&
      !(await this.memberships.find(account.id, token.organizationId))
    ) {
      return null;
    }
    await this.tokens.touch(token.id, this.clock.now());
    return { account, token };
  }
}
