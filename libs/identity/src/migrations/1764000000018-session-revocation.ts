import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The login normalization of this migration's time (identity's `loginKey`), copied so that the
 * migration keeps meaning what it meant: NFKC, full case folding (lower, upper, lower: `ß` and
 * `ẞ` become `ss`, `ı` becomes `i`), and `i` with a combining dot above (`İ` lowercased) as `i`.
 */
function loginKey(login: string): string {
  return login
    .trim()
    .normalize('NFKC')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replace(/i\u0307/g, 'i')
    .normalize('NFKC');
}

/**
 * Sessions that can be ended, and logins that are unique however they are spelled.
 *
 * - `account.sessions_valid_after`: a session JWT issued (`iat`) before it is refused; a
 *   password change or reset moves it forward, ending every session of the account at once.
 * - `revoked_session`: the ids (`jti`) of session JWTs ended by a logout, kept until the JWT
 *   would have expired anyway.
 * - `password_reset`: one pending reset link per account (only its SHA-256), so a new request
 *   replaces the earlier link; `used_at` makes it single-use.
 * - `account.login_key`: the normalized login, unique, replacing the unique index on
 *   `lower(login)`, which let `ＡＤＡ@…` (full-width) in beside `ada@…` and disagreed with
 *   the login throttle about `İ`. Accounts that already collide keep their data: the verified
 *   one (else the oldest) keeps the key, the others get `<key>#<id>`, which no login matches.
 */
export class SessionRevocation1764000000018 implements MigrationInterface {
  name = 'SessionRevocation1764000000018';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE account ADD COLUMN sessions_valid_after timestamptz;
      ALTER TABLE account ADD COLUMN login_key text;

      CREATE TABLE revoked_session (
        jti uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX revoked_session_expires_idx ON revoked_session (expires_at);

      CREATE TABLE password_reset (
        account_id uuid PRIMARY KEY REFERENCES account (id) ON DELETE CASCADE,
        token_hash text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE UNIQUE INDEX password_reset_token_key ON password_reset (token_hash);
    `);
    const accounts = (await runner.query(
      `SELECT id, login FROM account ORDER BY email_verified_at IS NULL, created_at, id`,
    )) as Array<{ id: string; login: string }>;
    const taken = new Set<string>();
    const keys = accounts.map(({ id, login }) => {
      const key = loginKey(login);
      if (taken.has(key)) return `${key}#${id}`;
      taken.add(key);
      return key;
    });
    await runner.query(
      `UPDATE account SET login_key = keyed.key
         FROM unnest($1::uuid[], $2::text[]) AS keyed (id, key)
        WHERE account.id = keyed.id`,
      [accounts.map((a) => a.id), keys],
    );
    await runner.query(`
      ALTER TABLE account ALTER COLUMN login_key SET NOT NULL;
      CREATE UNIQUE INDEX account_login_key_unique ON account (login_key);
      DROP INDEX account_login_key;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE UNIQUE INDEX account_login_key ON account (lower(login));
      DROP INDEX account_login_key_unique;
      ALTER TABLE account DROP COLUMN login_key;
      DROP TABLE password_reset;
      DROP TABLE revoked_session;
      ALTER TABLE account DROP COLUMN sessions_valid_after;
    `);
  }
}
