import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import type { Account, ApiToken, Membership, Project } from '../entities.js';
import { LAST_USED_RESOLUTION_SECONDS, TokensRepository } from '../tokens/tokens.repository.js';
import { sha256 } from './secrets.js';
import { type SessionClaims, SessionTokens } from './session-tokens.js';
import { SessionsRepository } from './sessions.repository.js';

/**
 * Turns a presented credential into an account, the same way for REST requests and WebSocket
 * handshakes. Null means "not a valid credential"; callers decide how to refuse.
 */
@Injectable()
export class CredentialVerifier {
  constructor(
    private readonly clock: Clock,
    private readonly sessions: SessionTokens,
    private readonly sessionStore: SessionsRepository,
    private readonly tokens: TokensRepository,
  ) {}

  /**
   * A valid, unexpired session JWT of a verified account that was not ended since: neither
   * logged out (its id revoked) nor issued before the account's sessions_valid_after.
   */
  async session(
    jwt: string,
  ): Promise<{ account: Account; expiresAt: Date; session: SessionClaims } | null> {
    const claims = jwt ? await this.sessions.verify(jwt) : null;
    if (!claims) return null;
    const found = await this.sessionStore.findSessionAccount(claims.accountId, claims.id);
    if (!found || found.revoked || !found.account.emailVerifiedAt) return null;
    if (found.sessionsValidAfter && claims.issuedAt < found.sessionsValidAfter) return null;
    return { account: found.account, expiresAt: claims.expiresAt, session: claims };
  }

  /**
   * A live API token whose owner still belongs to its organization (that membership comes
   * along, null for a platform admin without one); records its use. Ingest tokens count only
   * where the caller says so (`acceptIngest`: the ingest endpoint), so everywhere else they
   * are no credential at all. With `projectId`, the project it names comes along (null when
   * there is none), read in the same round trip.
   */
  async staticToken(
    raw: string,
    options: { acceptIngest?: boolean; projectId?: string } = {},
  ): Promise<{
    account: Account;
    token: ApiToken;
    membership: Membership | null;
    project?: Project | null;
  } | null> {
    const found = await this.tokens.findActiveWithOwner(sha256(raw), options.projectId);
    if (!found) return null;
    const { token, account, membership, project } = found;
    if (token.kind !== 'api' && !(token.kind === 'ingest' && options.acceptIngest)) return null;
    if (
      !ownerMayUse(account.emailVerifiedAt !== null, account.isPlatformAdmin, membership !== null)
    )
      return null;
    // last_used_at has minute resolution: skip the write while the stored value is fresh.
    const now = this.clock.now();
    if (
      !token.lastUsedAt ||
      now.getTime() - token.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_SECONDS * 1000
    ) {
      await this.tokens.touch(token.id, now);
    }
    return { account, token, membership, project };
  }

  /**
   * Of these API tokens (by id), those that would still authenticate: not revoked, and the
   * owner still may use them. For re-checking credentials held by long-lived connections;
   * records no use.
   */
  /** Of these login sessions (of open sockets), the ids of those not ended since. */
  liveSessions(
    sessions: ReadonlyArray<{ id: string; accountId: string; issuedAt: Date }>,
  ): Promise<Set<string>> {
    return this.sessionStore.liveSessions(sessions);
  }

  async liveApiTokens(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const tokens = await this.tokens.findActiveOwnership(ids);
    return new Set(
      tokens
        .filter(
          (t) =>
            t.kind === 'api' && ownerMayUse(t.email_verified, t.is_platform_admin, t.is_member),
        )
        .map((t) => t.id),
    );
  }
}

/** A token's owner may use it while verified and a member of its organization (or a platform admin). */
function ownerMayUse(emailVerified: boolean, platformAdmin: boolean, member: boolean): boolean {
  return emailVerified && (platformAdmin || member);
}
