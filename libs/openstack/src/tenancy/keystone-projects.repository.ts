import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export type TenantKind = 'project' | 'organization';

export interface KeystoneProjectRow {
  tenant_kind: TenantKind;
  tenant_id: string;
  keystone_project_id: string;
  keystone_project_name: string;
  created_at: Date;
}

/** The openstack_project table: which Keystone project serves which tenant. */
@Injectable()
export class KeystoneProjectsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(
    kind: TenantKind,
    tenantId: string,
    manager?: EntityManager,
  ): Promise<KeystoneProjectRow | null> {
    const rows: KeystoneProjectRow[] = await (manager ?? this.dataSource).query(
      `SELECT * FROM openstack_project WHERE tenant_kind = $1 AND tenant_id = $2`,
      [kind, tenantId],
    );
    return rows[0] ?? null;
  }

  async insert(row: KeystoneProjectRow, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO openstack_project (tenant_kind, tenant_id, keystone_project_id,
                                      keystone_project_name, created_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [
        row.tenant_kind,
        row.tenant_id,
        row.keystone_project_id,
        row.keystone_project_name,
        row.created_at,
      ],
    );
  }

  /**
   * Holds the tenant's provisioning lock until the transaction ends: processes provisioning
   * the same tenant at once take turns, and the later ones find the row the first stored.
   */
  async lockTenant(kind: TenantKind, tenantId: string, manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `openstack_project:${kind}:${tenantId}`,
    ]);
  }
}
