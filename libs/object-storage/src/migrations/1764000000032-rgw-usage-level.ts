import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `rgw_user_usage_level`: per RGW user, the quota threshold (0, 80 or 100 percent) its usage
 * was last seen at, and how many times it rose past one. The periodic usage check notifies the
 * organization's admins when the level rises; a level that falls is stored without a word, so
 * rising past the threshold again is a new crossing. `crossings` names each crossing's
 * notification, which a check run again after a crash therefore writes only once.
 */
export class RgwUsageLevel1764000000032 implements MigrationInterface {
  name = 'RgwUsageLevel1764000000032';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE rgw_user_usage_level (
        rgw_user_id uuid PRIMARY KEY REFERENCES rgw_user (id) ON DELETE CASCADE,
        level integer NOT NULL CHECK (level IN (0, 80, 100)),
        crossings integer NOT NULL DEFAULT 0,
        checked_at timestamptz NOT NULL
      );
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE rgw_user_usage_level;`);
  }
}
