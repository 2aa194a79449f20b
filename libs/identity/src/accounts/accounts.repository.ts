import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { Account, EmailVerification } from '../entities.js';

@Injectable()
export class AccountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string): Promise<Account | null> {
    return this.dataSource.getRepository(Account).findOneBy({ id });
  }

  /** Logins compare case-insensitively (backed by the unique index on lower(login)). */
  findByLogin(
    login: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Account | null> {
    return manager
      .getRepository(Account)
      .createQueryBuilder('account')
      .addSelect('account.passwordHash')
      .where('lower(account.login) = lower(:login)', { login: login.trim() })
      .getOne();
  }

  create(
    manager: EntityManager,
    fields: Pick<
      Account,
      'login' | 'name' | 'passwordHash' | 'emailVerifiedAt' | 'isPlatformAdmin'
    >,
    now: Date,
  ): Promise<Account> {
    return manager
      .getRepository(Account)
      .save(
        manager
          .getRepository(Account)
          .create({ ...fields, login: fields.login.trim(), createdAt: now, updatedAt: now }),
      );
  }

  async update(
    id: string,
    fields: Partial<Pick<Account, 'passwordHash' | 'emailVerifiedAt' | 'isPlatformAdmin' | 'name'>>,
    now: Date,
  ): Promise<void> {
    await this.dataSource.getRepository(Account).update({ id }, { ...fields, updatedAt: now });
  }

  async createVerification(
    manager: EntityManager,
    accountId: string,
    tokenHash: string,
    expiresAt: Date,
    now: Date,
  ): Promise<void> {
    await manager
      .getRepository(EmailVerification)
      .insert({ accountId, tokenHash, expiresAt, createdAt: now });
  }

  /** Marks the account verified and the token used, once; null when the token is unusable. */
  consumeVerification(tokenHash: string, now: Date): Promise<string | null> {
    return this.dataSource.transaction(async (manager) => {
      const rows: Array<{ account_id: string }> = await manager.query(
        `WITH used AS (
           UPDATE email_verification SET used_at = $2
            WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
            RETURNING account_id)
         SELECT account_id FROM used`,
        [tokenHash, now],
      );
      if (rows.length === 0) return null;
      await manager.query(
        `UPDATE account SET email_verified_at = COALESCE(email_verified_at, $2), updated_at = $2 WHERE id = $1`,
        [rows[0].account_id, now],
      );
      return rows[0].account_id;
    });
  }
}
