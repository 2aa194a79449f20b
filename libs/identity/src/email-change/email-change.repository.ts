import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface PendingEmailChange {
  email: string;
  expiresAt: Date;
}

/**
 * Pending e-mail address changes: one row per account holding the new address and the
 * SHA-256 of the newest confirmation link, so a new request replaces (and so cancels) the
 * earlier link.
 */
@Injectable()
export class EmailChangeRepository {
  constructor(private readonly dataSource: DataSource) {}

  async replace(
    accountId: string,
    change: { email: string; tokenHash: string; expiresAt: Date },
    now: Date,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO account_email_change (account_id, email, token_hash, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id) DO UPDATE
          SET email = EXCLUDED.email, token_hash = EXCLUDED.token_hash,
              expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at`,
      [accountId, change.email, change.tokenHash, change.expiresAt, now],
    );
  }

  /**
   * The account's pending change whose link has this token, locked until the transaction
   * ends; null when the account has none with it (another account's token included).
   */
  async findForUpdate(
    manager: EntityManager,
    accountId: string,
    tokenHash: string,
  ): Promise<PendingEmailChange | null> {
    const rows: Array<{ email: string; expires_at: Date }> = await manager.query(
      `SELECT email, expires_at FROM account_email_change
        WHERE account_id = $1 AND token_hash = $2
        FOR UPDATE`,
      [accountId, tokenHash],
    );
    return rows[0] ? { email: rows[0].email, expiresAt: rows[0].expires_at } : null;
  }

  /** Deletes the account's pending change; answers it, or null when there was none. */
  async remove(
    accountId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PendingEmailChange | null> {
    // Through a CTE, so the statement is a SELECT and answers its rows alone.
    const rows: Array<{ email: string; expires_at: Date }> = await manager.query(
      `WITH deleted AS (
         DELETE FROM account_email_change WHERE account_id = $1 RETURNING email, expires_at)
       SELECT email, expires_at FROM deleted`,
      [accountId],
    );
    return rows[0] ? { email: rows[0].email, expiresAt: rows[0].expires_at } : null;
  }
}
