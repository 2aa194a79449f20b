import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import {
  CredentialVerifier,
  scopesAllow,
  SESSION_COOKIE,
  STATIC_TOKEN_PREFIX,
} from '@platform/identity';
import { parse as parseCookies } from 'cookie';

/** How a login session's credential id begins (a static token's is its bare id). */
const SESSION_CREDENTIAL = 'session:';

export interface CableIdentity {
  accountId: string;
  /**
   * The one organization whose pushes the connection receives: a static token's own (it acts
   * only inside it); null for a login session, which receives those of every organization.
   */
  organizationId: string | null;
  /**
   * The credential the connection stays open on, re-checked while it lasts and closed by id
   * when it ends: the static token's id, or `session:<jti>:<account id>:<iat ms>` for a login
   * session (ended by a logout or a password change, or by expiring).
   */
  credentialId: string | null;
  /** When a session-authenticated connection stops being valid; null for static tokens. */
  expiresAt: Date | null;
}

/**
 * Authenticates a WebSocket handshake the way the REST API authenticates a request: the
 * `token` query parameter (a session JWT or a static API token) wins over the `_hq_session`
 * cookie. A static token needs the `notifications:read` scope. Null for missing or bad
 * credentials.
 */
@Injectable()
export class CableAuthenticator {
  private readonly publicOrigin: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly credentials: CredentialVerifier,
  ) {
    this.publicOrigin = new URL(config.publicUrl).origin;
  }

  async authenticate(request: IncomingMessage): Promise<CableIdentity | null> {
    const url = new URL(request.url ?? '/', 'http://cable.invalid');
    const token = url.searchParams.get('token')?.trim();
    if (token) {
      return token.startsWith(STATIC_TOKEN_PREFIX) ? this.staticToken(token) : this.session(token);
    }
    const session = parseCookies(request.headers.cookie ?? '')[SESSION_COOKIE];
    if (!session || !this.sameOrigin(request)) return null;
    return this.session(session);
  }

  /**
   * Browsers send cookies on cross-site WebSocket handshakes too, and no CSRF header can be
   * added to one: a cookie only counts when the page's origin is ours (or the host's own).
   */
  private sameOrigin(request: IncomingMessage): boolean {
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    if (origin === this.publicOrigin) return true;
    const host = request.headers.host;
    return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
  }

  /** Of these credentials of open connections (by id), those that still authenticate. */
  async stillValid(credentialIds: readonly string[]): Promise<Set<string>> {
    const sessions = credentialIds
      .filter((id) => id.startsWith(SESSION_CREDENTIAL))
      .map((credentialId) => {
        const [, id, accountId, issuedAtMs] = credentialId.split(':');
        return { credentialId, id, accountId, issuedAt: new Date(Number(issuedAtMs)) };
      });
    const [tokens, liveSessions] = await Promise.all([
      this.credentials.liveApiTokens(
        credentialIds.filter((id) => !id.startsWith(SESSION_CREDENTIAL)),
      ),
      this.credentials.liveSessions(sessions),
    ]);
    for (const session of sessions) {
      if (liveSessions.has(session.id)) tokens.add(session.credentialId);
    }
    return tokens;
  }

  private async session(jwt: string): Promise<CableIdentity | null> {
    const verified = await this.credentials.session(jwt);
    if (!verified) return null;
    return {
      accountId: verified.account.id,
      organizationId: null,
      credentialId: `${SESSION_CREDENTIAL}${verified.session.id}:${verified.account.id}:${verified.session.issuedAt.getTime()}`,
      expiresAt: verified.expiresAt,
    };
  }

  private async staticToken(raw: string): Promise<CableIdentity | null> {
    const verified = await this.credentials.staticToken(raw);
    if (!verified || !scopesAllow(verified.token.scopes, 'notifications', 'read')) return null;
    return {
      accountId: verified.account.id,
      organizationId: verified.token.organizationId,
      credentialId: verified.token.id,
      expiresAt: null,
    };
  }
}
