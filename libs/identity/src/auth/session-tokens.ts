import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { errors, jwtVerify, SignJWT } from 'jose';

/** Interactive sessions last a working day; static tokens are the long-lived credential. */
export const SESSION_TTL_SECONDS = 12 * 3600;
const ISSUER = 'platform';

export interface SessionClaims {
  accountId: string;
  expiresAt: Date;
}

/** Signs and verifies the session JWT (HS256 with SECRET_KEY), on the injected clock. */
@Injectable()
export class SessionTokens {
  private readonly key: Uint8Array;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.key = new TextEncoder().encode(config.secretKey);
  }

  async issue(accountId: string): Promise<{ token: string; expiresAt: Date }> {
    const issuedAt = Math.floor(this.clock.nowMs() / 1000);
    const expiresAt = new Date((issuedAt + SESSION_TTL_SECONDS) * 1000);
    const token = await new SignJWT({ typ: 'session' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(accountId)
      .setIssuer(ISSUER)
      .setIssuedAt(issuedAt)
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .setJti(crypto.randomUUID())
      .sign(this.key);
    return { token, expiresAt };
  }

  /** Null for anything that is not a valid, unexpired session token of ours. */
  async verify(token: string): Promise<SessionClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        currentDate: this.clock.now(),
      });
      if (payload.typ !== 'session' || typeof payload.sub !== 'string' || !payload.exp) return null;
      return { accountId: payload.sub, expiresAt: new Date(payload.exp * 1000) };
    } catch (error) {
      if (error instanceof errors.JOSEError) return null;
      throw error;
    }
  }
}
