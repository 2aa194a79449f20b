import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The RGW users the platform made, so listing them costs no call per user. Never their secret
 * key: RGW holds it, and the API shows it once (create, renew_key). Names are unique per
 * organization, as uids are per RGW tenant. No foreign keys: a project or organization deleted
 * on our side keeps its rows, like its users in RGW, until they are removed there (no silent
 * leaks).
 */
export class RgwUsers1764000000023 implements MigrationInterface {
  name = 'RgwUsers1764000000023';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE rgw_user (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        project_id uuid NOT NULL,
        name text NOT NULL,
        uid text NOT NULL UNIQUE,
        access_key text NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (organization_id, name)
      );
      CREATE INDEX rgw_user_project_idx ON rgw_user (project_id, created_at, name);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE rgw_user;`);
  }
}
