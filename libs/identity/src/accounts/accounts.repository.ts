import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { Account, EmailVerification } from '../entities.js';
import { loginKey } from './login-key.js';

@Injectable()
export class AccountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string): Promise<Account | null> {
    return this.dataSource.getRepository(Account).findOneBy({ id });
  }

  /** Logins compare in their normalized form (loginKey), backed by its unique index. */
  findByLogin(
    login: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Account | null> {
    return manager
      .getRepository(Account)
      .createQueryBuilder('account')
      .addSelect(['account.passwordHash', 'account.sessionsValidAfter'])
      .where('account.loginKey = :key', { key: loginKey(login) })
      .getOne();
  }

  /** The account with its password hash and sessions_valid_after, which ordinary reads leave out. */
  findWithPasswordHash(id: string): Promise<Account | null> {
    return this.dataSource
      .getRepository(Account)
      .createQueryBuilder('account')
      .addSelect(['account.passwordHash', 'account.sessionsValidAfter'])
      .where('account.id = :id', { id })
      .getOne();
  }

  /**
   * Sets a new password and ends the account's sessions: JWTs issued before
   * `sessionsValidAfter` are refused from then on. `verifyEmail` also marks the login
   * verified (a reset link proves the mailbox, as the verification link does).
   */
  async changePassword(
    manager: EntityManager,
    id: string,
    change: { passwordHash: string; sessionsValidAfter: Date; verifyEmail: boolean },
    now: Date,
  ): Promise<void> {
    await manager.query(
      `UPDATE account
          SET password_hash = $2, sessions_valid_after = $3, updated_at = $4,
              email_verified_at = CASE WHEN $5 THEN COALESCE(email_verified_at, $4)
                                       ELSE email_verified_at END
        WHERE id = $1`,
      [id, change.passwordHash, change.sessionsValidAfter, now, change.verifyEmail],
    );
  }

  create(
    manager: EntityManager,
    fields: Pick<
      Account,
      'login' | 'name' | 'passwordHash' | 'emailVerifiedAt' | 'isPlatformAdmin'
    >,
    now: Date,
  ): Promise<Account> {
    return manager.getRepository(Account).save(
      manager.getRepository(Account).create({
        ...fields,
        login: fields.login.trim(),
        loginKey: loginKey(fields.login),
        createdAt: now,
        updatedAt: now,
      }),
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
