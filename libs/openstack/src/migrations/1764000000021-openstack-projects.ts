import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Keystone project of each tenant: one per platform project (`platform-<project uuid>`)
 * and one per organization for its VPN (`platform-org-<organization uuid>`), created on first
 * use. No foreign key: a project deleted on our side keeps its mapping, and its Keystone
 * project, until its cloud resources are gone.
 */
export class OpenStackProjects1764000000021 implements MigrationInterface {
  name = 'OpenStackProjects1764000000021';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE openstack_project (
        tenant_kind text NOT NULL CHECK (tenant_kind IN ('project', 'organization')),
        tenant_id uuid NOT NULL,
        keystone_project_id text NOT NULL UNIQUE,
        keystone_project_name text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_kind, tenant_id)
      );
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE openstack_project;`);
  }
}
