import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Domain verification of DNS zones: a row per zone whose owner proved control of its name
 * (the TXT record resolved), keyed by Designate's zone id, which is never reused, so a zone
 * deleted and created again under the same name must be verified again. The token itself is
 * derived from the zone id, so nothing is stored before a verification succeeds. The project is
 * kept to scope every read to the caller's project and to find a project's rows; no foreign
 * key, like openstack_project, since the zone lives upstream.
 */
export class DnsZoneVerification1764000000022 implements MigrationInterface {
  name = 'DnsZoneVerification1764000000022';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE dns_zone_verification (
        zone_id text PRIMARY KEY,
        project_id uuid NOT NULL,
        zone_name text NOT NULL,
        verified_at timestamptz NOT NULL
      );
    `);
    await runner.query(
      `CREATE INDEX dns_zone_verification_project ON dns_zone_verification (project_id);`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE dns_zone_verification;`);
  }
}
