import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `account_login_origin`: the client addresses and user agents (SHA-256 of the header) each
 * account logged in from, with when last, so a login from one not seen for 90 days can be told
 * to the account. Rows past 90 days are pruned at the account's next login.
 */
export class AccountLoginOrigin1764000000030 implements MigrationInterface {
  name = 'AccountLoginOrigin1764000000030';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE account_login_origin (
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        address text NOT NULL,
        user_agent_hash text NOT NULL,
        last_seen_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, address, user_agent_hash)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE account_login_origin`);
  }
}
