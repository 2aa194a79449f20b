import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { Account, EmailVerification } from '../entities.js';
import { loginKey } from './login-key.js';

/** First key of the per-login advisory locks (the second is a hash of the login). */
const ACCOUNT_LOGIN_LOCK = 1_764_000_000;

export type LockedAccount = Pick<
  Account,
  'id' | 'passwordHash' | 'emailVerifiedAt' | 'isPlatformAdmin'
>;

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

  /**
   * Makes `login` the account's login and verified e-mail address (its link was opened);
   * answers the login it had. A login another account holds fails on the unique login_key.
   */
  async changeLogin(
    manager: EntityManager,
    id: string,
    login: string,
    now: Date,
  ): Promise<string | null> {
    const rows: Array<{ previous_login: string }> = await manager.query(
      `WITH previous AS (SELECT id, login FROM account WHERE id = $1 FOR UPDATE),
            changed AS (
              UPDATE account a
                 SET login = $2, login_key = $3, email_verified_at = $4, updated_at = $4
                FROM previous WHERE a.id = previous.id
              RETURNING previous.login AS previous_login)
       SELECT previous_login FROM changed`,
      [id, login.trim(), loginKey(login), now],
    );
    return rows[0]?.previous_login ?? null;
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

  /**
   * Serializes, across processes, work on one login until the transaction ends (the platform
   * admin ensured by several processes starting at once).
   */
  async lockLogin(manager: EntityManager, login: string): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      ACCOUNT_LOGIN_LOCK,
      loginKey(login),
    ]);
  }

  /** The account holding a login, locked until the transaction ends; null when there is none. */
  async findForUpdate(manager: EntityManager, login: string): Promise<LockedAccount | null> {
    const rows: LockedAccount[] = await manager.query(
      `SELECT id, password_hash AS "passwordHash", email_verified_at AS "emailVerifiedAt",
              is_platform_admin AS "isPlatformAdmin"
         FROM account WHERE login_key = $1 FOR UPDATE`,
      [loginKey(login)],
    );
    return rows[0] ?? null;
  }

  /** Inserts a verified platform admin; false when the login is taken already. */
  async insertPlatformAdmin(
    manager: EntityManager,
    login: string,
    passwordHash: string,
    now: Date,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO account (login, login_key, name, password_hash, email_verified_at,
                            is_platform_admin, created_at, updated_at)
       VALUES ($1, $2, 'Platform admin', $3, $4, true, $4, $4)
       ON CONFLICT (login_key) DO NOTHING
       RETURNING id`,
      [login.trim(), loginKey(login), passwordHash, now],
    );
    return rows.length > 0;
  }

  /** Makes the account a verified platform admin, with a new password hash when one is given. */
  async promoteToPlatformAdmin(
    manager: EntityManager,
    id: string,
    passwordHash: string | null,
    now: Date,
  ): Promise<void> {
    await manager.query(
      `UPDATE account
          SET is_platform_admin = true, email_verified_at = COALESCE(email_verified_at, $2),
              password_hash = COALESCE($3, password_hash), updated_at = $2
        WHERE id = $1`,
      [id, now, passwordHash],
    );
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
