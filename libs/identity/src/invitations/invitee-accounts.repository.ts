import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Account } from '../entities.js';

/**
 * The account rows an invitation claims its address with. An unverified account proves
 * nothing about who owns its login (anyone can register any address), so the invitee, who
 * proves it by holding the token mailed there, takes such a registration over.
 */
@Injectable()
export class InviteeAccountsRepository {
  /**
   * Locks the account until the transaction ends and answers whether it is still unverified:
   * a verification racing with the take-over either commits first (and the invitee must sign
   * in) or waits and finds the account verified by the invitation.
   */
  async lockUnverified(manager: EntityManager, id: string): Promise<boolean> {
    const rows: Array<{ email_verified_at: Date | null }> = await manager.query(
      'SELECT email_verified_at FROM account WHERE id = $1 FOR UPDATE',
      [id],
    );
    return rows.length === 1 && rows[0].email_verified_at === null;
  }

  /**
   * Makes an unverified registration the invitee's: the name and password given with the
   * invitation, verified now. Whoever registered the address before keeps no way in (the
   * password they chose is gone); the account keeps its id and the organization it created.
   */
  async takeOver(
    manager: EntityManager,
    id: string,
    fields: { name: string; passwordHash: string },
    now: Date,
  ): Promise<Account> {
    await manager
      .getRepository(Account)
      .update({ id }, { ...fields, emailVerifiedAt: now, updatedAt: now });
    return manager.getRepository(Account).findOneByOrFail({ id });
  }
}
