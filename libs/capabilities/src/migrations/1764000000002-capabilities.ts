import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Axis B: the feature catalog (data, so a new kind is a migration and not a code branch),
 * each organization's Limit, each project's Grant, and feature requests.
 */
export class Capabilities1764000000002 implements MigrationInterface {
  name = 'Capabilities1764000000002';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE feature (
        key text PRIMARY KEY,
        name text NOT NULL,
        provisioning_tier text NOT NULL CHECK (provisioning_tier IN ('self_service', 'provisioned')),
        billed boolean NOT NULL,
        available_kinds text[] NOT NULL,
        position integer NOT NULL
      );
      INSERT INTO feature (key, name, provisioning_tier, billed, available_kinds, position) VALUES
        ('apps', 'Apps', 'self_service', true,
          '{wordpress,nextcloud,static_site,container}', 1),
        ('dns', 'DNS', 'self_service', false,
          '{zone,record,domain_verification}', 2),
        ('object_storage', 'Object Storage', 'self_service', true,
          '{user,bucket}', 3),
        ('kubernetes', 'Kubernetes', 'provisioned', true,
          '{cluster}', 4),
        ('openstack', 'OpenStack Compute', 'provisioned', true,
          '{server,volume,network,router,floating_ip,load_balancer,security_group}', 5),
        ('alerts', 'Alerts', 'self_service', false,
          '{ingest,routes,escalation,phone}', 6);

      -- No row, or allowed_kinds NULL: the organization's Limit is unbounded.
      CREATE TABLE feature_limit (
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        feature_key text NOT NULL REFERENCES feature (key),
        allowed_kinds text[],
        updated_by uuid REFERENCES account (id) ON DELETE SET NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, feature_key)
      );

      -- allowed_kinds NULL: whatever the Limit allows, now and after it changes.
      CREATE TABLE feature_grant (
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        feature_key text NOT NULL REFERENCES feature (key),
        allowed_kinds text[],
        granted_by uuid REFERENCES account (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, feature_key)
      );

      CREATE TABLE feature_request (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        feature_key text NOT NULL REFERENCES feature (key),
        requested_kinds text[],
        message text,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        requested_by uuid REFERENCES account (id) ON DELETE SET NULL,
        decided_by uuid REFERENCES account (id) ON DELETE SET NULL,
        decided_at timestamptz,
        decision_note text,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX feature_request_project_idx ON feature_request (project_id, created_at DESC);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE feature_request;
      DROP TABLE feature_grant;
      DROP TABLE feature_limit;
      DROP TABLE feature;
    `);
  }
}
