import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Servers created through the platform, watched until they settle: Nova answers a create while
 * the server is still in BUILD, and the worker polls the pending ones to tell the organization
 * `server.active` when they are up. A row is settled (with how) when the server became ACTIVE,
 * went to ERROR, was deleted, or did not settle within the watch. No foreign keys, like
 * openstack_project: the server lives upstream.
 */
export class OpenStackServerWatch1764000000026 implements MigrationInterface {
  name = 'OpenStackServerWatch1764000000026';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE openstack_server_watch (
        server_id text PRIMARY KEY,
        project_id uuid NOT NULL,
        organization_id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        settled_at timestamptz,
        outcome text CHECK (outcome IN ('active', 'error', 'deleted', 'expired')),
        CHECK ((settled_at IS NULL) = (outcome IS NULL))
      );
      -- The poll reads the pending rows only.
      CREATE INDEX openstack_server_watch_pending_idx
        ON openstack_server_watch (project_id) WHERE settled_at IS NULL;
      CREATE INDEX openstack_server_watch_settled_idx
        ON openstack_server_watch (settled_at) WHERE settled_at IS NOT NULL;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE openstack_server_watch;`);
  }
}
