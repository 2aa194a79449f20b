import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export type ResetTokenProblem = 'unknown' | 'used' | 'expired';

/**
 * Pending password resets: one row per account holding the SHA-256 of its newest link, so a
 * new request replaces (and so cancels) the earlier link.
 */
@Injectable()
export class PasswordResetRepository {
  constructor(private readonly dataSource: DataSource) {}

  async replace(accountId: string, tokenHash: string, expiresAt: Date, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO password_reset (account_id, token_hash, expires_at, used_at, created_at)
       VALUES ($1, $2, $3, NULL, $4)
       ON CONFLICT (account_id) DO UPDATE
          SET token_hash = EXCLUDED.token_hash, expires_at = EXCLUDED.expires_at,
              used_at = NULL, created_at = EXCLUDED.created_at`,
      [accountId, tokenHash, expiresAt, now],
    );
  }

  /** Cancels the account's reset link (it went to an address the account no longer has). */
  async cancel(manager: EntityManager, accountId: string): Promise<void> {
    await manager.query(`DELETE FROM password_reset WHERE account_id = $1`, [accountId]);
  }

  /** Why the token cannot be used now; null when it can. */
  async problemWith(tokenHash: string, now: Date): Promise<ResetTokenProblem | null> {
    const [row]: Array<{ used_at: Date | null; expires_at: Date }> = await this.dataSource.query(
      `SELECT used_at, expires_at FROM password_reset WHERE token_hash = $1`,
      [tokenHash],
    );
    if (!row) return 'unknown';
    if (row.used_at) return 'used';
    return row.expires_at <= now ? 'expired' : null;
  }

  /** Marks the token used, once: the account and its login, or null when it is not usable. */
  async consume(
    manager: EntityManager,
    tokenHash: string,
    now: Date,
  ): Promise<{ accountId: string; login: string } | null> {
    const rows: Array<{ account_id: string; login: string }> = await manager.query(
      `WITH used AS (
         UPDATE password_reset SET used_at = $2
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
          RETURNING account_id)
       SELECT used.account_id, a.login FROM used JOIN account a ON a.id = used.account_id`,
      [tokenHash, now],
    );
    return rows[0] ? { accountId: rows[0].account_id, login: rows[0].login } : null;
  }
}
