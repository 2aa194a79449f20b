import type { EntityManager } from 'typeorm';

/**
 * The account's phone number, written only here: other libraries (phone verification) set and
 * clear it through these, inside their own transaction.
 */
export const AccountPhone = {
  /** Makes `phoneNumber` the account's verified number. */
  async setVerified(
    manager: EntityManager,
    accountId: string,
    phoneNumber: string,
    now: Date,
  ): Promise<void> {
    await manager.query(
      `UPDATE account SET phone_number = $2, phone_verified_at = $3, updated_at = $3 WHERE id = $1`,
      [accountId, phoneNumber, now],
    );
  },

  /** Forgets the account's number, verified or not; answers whether it had one. */
  async clear(manager: EntityManager, accountId: string, now: Date): Promise<boolean> {
    // pg answers an UPDATE as [rows, affected count].
    const [, affected]: [unknown[], number] = await manager.query(
      `UPDATE account SET phone_number = NULL, phone_verified_at = NULL, updated_at = $2
        WHERE id = $1 AND (phone_number IS NOT NULL OR phone_verified_at IS NOT NULL)`,
      [accountId, now],
    );
    return affected > 0;
  },
};
