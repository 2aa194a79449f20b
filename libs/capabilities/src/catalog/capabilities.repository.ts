import { Injectable } from '@nestjs/common';
import { preparedQuery } from '@platform/database';
import { DataSource, type EntityManager } from 'typeorm';
import type { KindSet } from './kinds.js';

export type ProvisioningTier = 'self_service' | 'provisioned';

export interface FeatureRow {
  key: string;
  name: string;
  provisioning_tier: ProvisioningTier;
  billed: boolean;
  available_kinds: string[];
}

/** One feature as it stands for one project: the catalog entry, the Limit and the Grant. */
export interface ProjectFeatureRow extends FeatureRow {
  limit_kinds: string[] | null;
  granted: boolean;
  grant_kinds: string[] | null;
  granted_at: Date | null;
  grant_updated_at: Date | null;
}

const FEATURE_COLUMNS = 'f.key, f.name, f.provisioning_tier, f.billed, f.available_kinds';

/**
 * What a project has, with Limit and Grant: every capability-guarded request reads it. One
 * statement per shape: with "$2 IS NULL OR key = $2" the generic plan could not drop the
 * filter, so PostgreSQL planned the four-table join afresh on every execution (0.4 ms).
 */
const projectFeatures = (name: string, filter: string) => ({
  name,
  text: `SELECT ${FEATURE_COLUMNS}, l.allowed_kinds AS limit_kinds,
              g.project_id IS NOT NULL AS granted, g.allowed_kinds AS grant_kinds,
              g.created_at AS granted_at, g.updated_at AS grant_updated_at
         FROM project p
         CROSS JOIN feature f
         LEFT JOIN feature_limit l ON l.feature_key = f.key AND l.organization_id = p.organization_id
         LEFT JOIN feature_grant g ON g.feature_key = f.key AND g.project_id = p.id
        WHERE p.id = $1${filter}
        ORDER BY f.position`,
});
const PROJECT_FEATURES = projectFeatures('project-features', '');
const PROJECT_FEATURE = projectFeatures('project-feature', ' AND f.key = $2');

/** The catalog, Limits and Grants. Every read is fresh: Available is never cached. */
@Injectable()
export class CapabilitiesRepository {
  constructor(private readonly dataSource: DataSource) {}

  features(): Promise<FeatureRow[]> {
    return this.dataSource.query(`SELECT ${FEATURE_COLUMNS} FROM feature f ORDER BY f.position`);
  }

  async feature(key: string, manager?: EntityManager): Promise<FeatureRow | null> {
    const rows: FeatureRow[] = await (manager ?? this.dataSource).query(
      `SELECT ${FEATURE_COLUMNS} FROM feature f WHERE f.key = $1`,
      [key],
    );
    return rows[0] ?? null;
  }

  /** The organization's features with their Limits, catalog order; `key` narrows to one. */
  organizationFeatures(
    organizationId: string,
    key?: string,
  ): Promise<Array<FeatureRow & { limit_kinds: string[] | null; limit_updated_at: Date | null }>> {
    return this.dataSource.query(
      `SELECT ${FEATURE_COLUMNS}, l.allowed_kinds AS limit_kinds, l.updated_at AS limit_updated_at
         FROM feature f
         LEFT JOIN feature_limit l ON l.feature_key = f.key AND l.organization_id = $1
        WHERE $2::text IS NULL OR f.key = $2
        ORDER BY f.position`,
      [organizationId, key ?? null],
    );
  }

  /** The project's features with Limit and Grant, in one read; `key` narrows to one. */
  projectFeatures(projectId: string, key?: string): Promise<ProjectFeatureRow[]> {
    return key === undefined
      ? preparedQuery(this.dataSource, PROJECT_FEATURES, [projectId])
      : preparedQuery(this.dataSource, PROJECT_FEATURE, [projectId, key]);
  }

  /**
   * Runs `work` with the organization row locked, so Limit changes and Grant writes of one
   * organization are serialized and a Grant is always checked against the Limit that stands.
   */
  withOrganizationLocked<T>(
    organizationId: string,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT 1 FROM organization WHERE id = $1 FOR UPDATE', [organizationId]);
      return work(manager);
    });
  }

  async limit(manager: EntityManager, organizationId: string, key: string): Promise<KindSet> {
    const rows: Array<{ allowed_kinds: string[] | null }> = await manager.query(
      'SELECT allowed_kinds FROM feature_limit WHERE organization_id = $1 AND feature_key = $2',
      [organizationId, key],
    );
    return rows[0]?.allowed_kinds ?? null;
  }

  async setLimit(
    manager: EntityManager,
    change: { organizationId: string; key: string; kinds: KindSet; actorId: string; at: Date },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO feature_limit (organization_id, feature_key, allowed_kinds, updated_by, updated_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id, feature_key) DO UPDATE
         SET allowed_kinds = EXCLUDED.allowed_kinds, updated_by = EXCLUDED.updated_by,
             updated_at = EXCLUDED.updated_at`,
      [change.organizationId, change.key, change.kinds, change.actorId, change.at],
    );
  }

  async grant(
    manager: EntityManager,
    projectId: string,
    key: string,
  ): Promise<KindSet | undefined> {
    const rows: Array<{ allowed_kinds: string[] | null }> = await manager.query(
      'SELECT allowed_kinds FROM feature_grant WHERE project_id = $1 AND feature_key = $2',
      [projectId, key],
    );
    return rows.length === 0 ? undefined : rows[0].allowed_kinds;
  }

  async setGrant(
    manager: EntityManager,
    grant: { projectId: string; key: string; kinds: KindSet; actorId: string; at: Date },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO feature_grant (project_id, feature_key, allowed_kinds, granted_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (project_id, feature_key) DO UPDATE
         SET allowed_kinds = EXCLUDED.allowed_kinds, granted_by = EXCLUDED.granted_by,
             updated_at = EXCLUDED.updated_at`,
      [grant.projectId, grant.key, grant.kinds, grant.actorId, grant.at],
    );
  }

  async deleteGrant(projectId: string, key: string): Promise<void> {
    await this.dataSource.query(
      'DELETE FROM feature_grant WHERE project_id = $1 AND feature_key = $2',
      [projectId, key],
    );
  }

  async organizationAdmins(organizationId: string): Promise<string[]> {
    const rows: Array<{ account_id: string }> = await this.dataSource.query(
      `SELECT account_id FROM membership WHERE organization_id = $1 AND role = 'admin'`,
      [organizationId],
    );
    return rows.map((row) => row.account_id);
  }
}
