import { Injectable } from '@nestjs/common';
import { preparedQuery } from '@platform/database';
import { DataSource } from 'typeorm';
import { Account } from '../entities.js';

interface SessionAccountRow {
  id: string;
  login: string;
  name: string;
  email_verified_at: Date | null;
  is_platform_admin: boolean;
  phone_number: string | null;
  phone_verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
  sessions_valid_after: Date | null;
  revoked: boolean;
}

/**
 * Every JWT-authenticated request reads its account here, and whether its session was ended
 * comes along in the same round trip: the primary-key read of the account and one probe of
 * the revoked-session index. A named statement, prepared once per connection.
 */
const SESSION_ACCOUNT = {
  name: 'session-account',
  text: `SELECT a.id, a.login, a.name, a.email_verified_at, a.is_platform_admin, a.phone_number,
                a.phone_verified_at, a.created_at, a.updated_at, a.sessions_valid_after,
                EXISTS (SELECT 1 FROM revoked_session r WHERE r.jti = $2) AS revoked
           FROM account a
          WHERE a.id = $1`,
};

/**
 * Ended sessions, in PostgreSQL so that every API replica refuses them and a restart forgets
 * none: a logout adds the JWT's id to `revoked_session` until the JWT would have expired (and
 * drops the ids whose JWTs have); a password change or reset moves the account's
 * `sessions_valid_after` (AccountsRepository.changePassword).
 */
@Injectable()
export class SessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The account of a session and whether the session is still good; null: no such account. */
  async findSessionAccount(
    accountId: string,
    sessionId: string,
  ): Promise<{ account: Account; sessionsValidAfter: Date | null; revoked: boolean } | null> {
    const [row] = await preparedQuery<SessionAccountRow>(this.dataSource, SESSION_ACCOUNT, [
      accountId,
      sessionId,
    ]);
    if (!row) return null;
    const account = Object.assign(new Account(), {
      id: row.id,
      login: row.login,
      name: row.name,
      emailVerifiedAt: row.email_verified_at,
      isPlatformAdmin: row.is_platform_admin,
      phoneNumber: row.phone_number,
      phoneVerifiedAt: row.phone_verified_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    });
    return { account, sessionsValidAfter: row.sessions_valid_after, revoked: row.revoked };
  }

  /**
   * Of these sessions (of open sockets), the ids of those still good: not ended by a logout,
   * issued after the account's sessions_valid_after, the account still there and verified.
   * One statement for all of them.
   */
  async liveSessions(
    sessions: ReadonlyArray<{ id: string; accountId: string; issuedAt: Date }>,
  ): Promise<Set<string>> {
    if (sessions.length === 0) return new Set();
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT s.id
         FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) AS s (id, account_id, issued_at)
         JOIN account a ON a.id = s.account_id
        WHERE a.email_verified_at IS NOT NULL
          AND (a.sessions_valid_after IS NULL OR s.issued_at >= a.sessions_valid_after)
          AND NOT EXISTS (SELECT 1 FROM revoked_session r WHERE r.jti = s.id)`,
      [
        sessions.map((s) => s.id),
        sessions.map((s) => s.accountId),
        sessions.map((s) => s.issuedAt),
      ],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** Refuses the session from now on (nothing to do once its account is gone); idempotent. */
  async revoke(
    session: { id: string; accountId: string; expiresAt: Date },
    now: Date,
  ): Promise<void> {
    await this.dataSource.query(
      `WITH expired AS (DELETE FROM revoked_session WHERE expires_at <= $4)
       INSERT INTO revoked_session (jti, account_id, expires_at)
       SELECT $1, id, $3 FROM account WHERE id = $2
       ON CONFLICT (jti) DO NOTHING`,
      [session.id, session.accountId, session.expiresAt, now],
    );
  }
}
