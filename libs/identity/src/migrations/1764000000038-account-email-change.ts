import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `account_email_change`: the one pending change of an account's e-mail address, waiting for
 * the link mailed to the new address. A new request replaces the row (and so the earlier
 * link); the link's token is stored only as its SHA-256.
 */
export class AccountEmailChange1764000000038 implements MigrationInterface {
  name = 'AccountEmailChange1764000000038';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE account_email_change (
        account_id uuid PRIMARY KEY REFERENCES account (id) ON DELETE CASCADE,
        email text NOT NULL,
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE account_email_change`);
  }
}
