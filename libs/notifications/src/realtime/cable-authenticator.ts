import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { CredentialVerifier, SESSION_COOKIE, STATIC_TOKEN_PREFIX } from '@platform/identity';
import { parse as parseCookies } from 'cookie';

export interface CableIdentity {
  accountId: string;
  /** When a session-authenticated connection stops being valid; null for static tokens. */
  expiresAt: Date | null;
}

/**
 * Authenticates a WebSocket handshake the way the REST API authenticates a request: the
 * `token` query parameter (a session JWT or a static API token) wins over the `_hq_session`
 * cookie. Null for missing or bad credentials.
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

  private async session(jwt: string): Promise<CableIdentity | null> {
    const verified = await this.credentials.session(jwt);
    return verified ? { accountId: verified.account.id, expiresAt: verified.expiresAt } : null;
  }

  private async staticToken(raw: string): Promise<CableIdentity | null> {
    const verified = await this.credentials.staticToken(raw);
    return verified ? { accountId: verified.account.id, expiresAt: null } : null;
  }
}
