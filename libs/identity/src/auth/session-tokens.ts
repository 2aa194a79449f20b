import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Clock } from '@platform/core';
import { errors, jwtVerify, SignJWT } from 'jose';

/** Interactive sessions last a working day; static tokens are the long-lived credential. */
export const SESSION_TTL_SECONDS = 12 * 3600;
const ISSUER = 'platform';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface SessionClaims {
  accountId: string;
  /** The JWT's id (`jti`): what a logout revokes. */
  id: string;
  /** `iat`, whole seconds: compared with the account's sessions_valid_after. */
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * The first whole second from which sessions count again after ending every session at `now`:
 * a JWT issued (whole seconds) before it is refused, one issued from it on is not, so the
 * sessions issued in the very second of a password change end with it.
 */
export function sessionsValidFrom(now: Date): Date {
  return new Date((Math.floor(now.getTime() / 1000) + 1) * 1000);
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

  /**
   * A new session JWT. `validFrom` is the account's sessions_valid_after: a session issued in
   * the second of a password change is dated into the next one (at most a second ahead), so
   * that it is not refused with the sessions the change ended.
   */
  async issue(
    accountId: string,
    validFrom: Date | null = null,
  ): Promise<{ token: string; claims: SessionClaims }> {
    const issuedAt = Math.max(
      Math.floor(this.clock.nowMs() / 1000),
      validFrom ? Math.ceil(validFrom.getTime() / 1000) : 0,
    );
    const expiresAt = issuedAt + SESSION_TTL_SECONDS;
    const id = crypto.randomUUID();
    const token = await new SignJWT({ typ: 'session' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(accountId)
      .setIssuer(ISSUER)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setJti(id)
      .sign(this.key);
    return {
      token,
      claims: {
        accountId,
        id,
        issuedAt: new Date(issuedAt * 1000),
        expiresAt: new Date(expiresAt * 1000),
      },
    };
  }

  /**
   * Null for anything that is not a valid, unexpired session token of ours; whether it was
   * ended since is the CredentialVerifier's question.
   */
  async verify(token: string): Promise<SessionClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        currentDate: this.clock.now(),
      });
      const { typ, sub, jti, iat, exp } = payload;
      if (typ !== 'session' || !exp || !iat) return null;
      if (typeof sub !== 'string' || !UUID.test(sub)) return null;
      if (typeof jti !== 'string' || !UUID.test(jti)) return null;
      return {
        accountId: sub,
        id: jti,
        issuedAt: new Date(iat * 1000),
        expiresAt: new Date(exp * 1000),
      };
    } catch (error) {
      if (error instanceof errors.JOSEError) return null;
      throw error;
    }
  }
}
