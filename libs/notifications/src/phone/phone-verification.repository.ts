import { AccountPhone } from '@platform/identity';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface PendingVerification {
  phoneNumber: string;
  codeHash: string;
  attempts: number;
  expiresAt: Date;
}

/** phone_verification (one pending number per account) and the account's verified number. */
@Injectable()
export class PhoneVerificationRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Replaces any pending verification of the account: a new number, code and attempt count. */
  async savePending(
    accountId: string,
    pending: Omit<PendingVerification, 'attempts'>,
    now: Date,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO phone_verification (account_id, phone_number, code_hash, attempts, expires_at, created_at)
       VALUES ($1, $2, $3, 0, $4, $5)
       ON CONFLICT (account_id) DO UPDATE
         SET phone_number = excluded.phone_number, code_hash = excluded.code_hash,
             attempts = 0, expires_at = excluded.expires_at, created_at = excluded.created_at`,
      [accountId, pending.phoneNumber, pending.codeHash, pending.expiresAt, now],
    );
  }

  /**
   * Runs `decide` on the pending verification, locked against concurrent guesses, and applies
   * what it returns: count a wrong attempt, or make the number the account's verified one.
   */
  attempt<T>(
    accountId: string,
    decide: (pending: PendingVerification | null) => {
      apply: 'none' | 'count_attempt' | 'verify';
      result: T;
    },
    now: Date,
  ): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      const rows: Array<{
        phone_number: string;
        code_hash: string;
        attempts: number;
        expires_at: Date;
      }> = await manager.query(
        `SELECT phone_number, code_hash, attempts, expires_at FROM phone_verification
          WHERE account_id = $1 FOR UPDATE`,
        [accountId],
      );
      const row = rows[0];
      const { apply, result } = decide(
        row
          ? {
              phoneNumber: row.phone_number,
              codeHash: row.code_hash,
              attempts: row.attempts,
              expiresAt: new Date(row.expires_at),
            }
          : null,
      );
      if (apply === 'count_attempt') {
        await manager.query(
          `UPDATE phone_verification SET attempts = attempts + 1 WHERE account_id = $1`,
          [accountId],
        );
      } else if (apply === 'verify' && row) {
        await AccountPhone.setVerified(manager, accountId, row.phone_number, now);
        await manager.query(`DELETE FROM phone_verification WHERE account_id = $1`, [accountId]);
      }
      return result;
    });
  }

  /** Forgets the verified number and any pending verification. */
  /** Answers whether the account had a number. */
  remove(accountId: string, now: Date): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`DELETE FROM phone_verification WHERE account_id = $1`, [accountId]);
      return AccountPhone.clear(manager, accountId, now);
    });
  }
}
