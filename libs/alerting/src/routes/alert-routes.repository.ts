import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Matcher } from '../matchers/matchers.js';
import type { Severity } from '../severity.js';

export const IN_APP_TARGET_TYPES = ['none', 'org_admins', 'roster', 'member', 'role'] as const;
export type InAppTargetType = (typeof IN_APP_TARGET_TYPES)[number];
export const IN_APP_TARGET_ROLES = ['Admin', 'Member'] as const;
export type InAppTargetRole = (typeof IN_APP_TARGET_ROLES)[number];

/** The stored, writable state of a route. */
export interface AlertRouteFields {
  name: string;
  priority: number;
  matchers: Matcher[];
  escalation_chain_id: string | null;
  in_app_target_type: InAppTargetType;
  in_app_target_roster_id: string | null;
  in_app_target_member_id: string | null;
  in_app_target_role: InAppTargetRole | null;
  min_severity_for_notification: Severity | null;
  cooldown_seconds: number | null;
  bundle_window_seconds: number;
  enabled: boolean;
}

export interface AlertRouteRow extends AlertRouteFields {
  id: string;
  project_id: string;
  last_notified_at: Date | null;
  created_at: Date;
  updated_at: Date;
  notification_endpoint_ids: string[];
}

const ROUTE_SELECT = `
  SELECT r.id, r.project_id, r.name, r.priority, r.matchers, r.escalation_chain_id,
         r.in_app_target_type, r.in_app_target_roster_id, r.in_app_target_member_id,
         r.in_app_target_role, r.min_severity_for_notification, r.cooldown_seconds,
         r.bundle_window_seconds,         r.last_notified_at, r.enabled, r.created_at, r.updated_at,
         COALESCE((SELECT array_agg(re.endpoint_id::text ORDER BY re.endpoint_id)
                     FROM alert_route_endpoint re WHERE re.route_id = r.id),
                  '{}'::text[]) AS notification_endpoint_ids
    FROM alert_route r`;

const ORDER = 'ORDER BY r.priority, r.created_at, r.id';

const FIELD_COLUMNS: Array<keyof AlertRouteFields> = [
  'name',
  'priority',
  'matchers',
  'escalation_chain_id',
  'in_app_target_type',
  'in_app_target_roster_id',
  'in_app_target_member_id',
  'in_app_target_role',
  'min_severity_for_notification',
  'cooldown_seconds',
  'bundle_window_seconds',
  'enabled',
];

function fieldValues(fields: AlertRouteFields): unknown[] {
  return FIELD_COLUMNS.map((column) =>
    column === 'matchers' ? JSON.stringify(fields.matchers) : fields[column],
  );
}

/** Routes of a project, their attached endpoints, and the references a route may hold. */
@Injectable()
export class AlertRoutesRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** In evaluation order: priority ascending, then the older route, then the id. */
  list(projectId: string, manager?: EntityManager): Promise<AlertRouteRow[]> {
    return (manager ?? this.dataSource).query(`${ROUTE_SELECT} WHERE r.project_id = $1 ${ORDER}`, [
      projectId,
    ]);
  }

  async find(
    projectId: string,
    id: string,
    manager?: EntityManager,
  ): Promise<AlertRouteRow | null> {
    const rows: AlertRouteRow[] = await (manager ?? this.dataSource).query(
      `${ROUTE_SELECT} WHERE r.project_id = $1 AND r.id = $2`,
      [projectId, id],
    );
    return rows[0] ?? null;
  }

  /** Locks the route for the rest of the transaction, so concurrent updates apply in turn. */
  async lock(manager: EntityManager, projectId: string, id: string): Promise<AlertRouteRow | null> {
    const locked: unknown[] = await manager.query(
      'SELECT 1 FROM alert_route WHERE project_id = $1 AND id = $2 FOR UPDATE',
      [projectId, id],
    );
    return locked.length === 0 ? null : this.find(projectId, id, manager);
  }

  async insert(
    manager: EntityManager,
    projectId: string,
    fields: AlertRouteFields,
    at: Date,
  ): Promise<string> {
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO alert_route (project_id, ${FIELD_COLUMNS.join(', ')}, created_at, updated_at)
       VALUES ($1, ${FIELD_COLUMNS.map((_, i) => `$${i + 2}`).join(', ')},
               $${FIELD_COLUMNS.length + 2}, $${FIELD_COLUMNS.length + 2})
       RETURNING id`,
      [projectId, ...fieldValues(fields), at],
    );
    return rows[0].id;
  }

  async update(
    manager: EntityManager,
    id: string,
    fields: AlertRouteFields,
    at: Date,
  ): Promise<void> {
    await manager.query(
      `UPDATE alert_route
          SET ${FIELD_COLUMNS.map((column, i) => `${column} = $${i + 2}`).join(', ')},
              updated_at = $${FIELD_COLUMNS.length + 2}
        WHERE id = $1`,
      [id, ...fieldValues(fields), at],
    );
  }

  /** Replaces the attached set with `endpointIds` (already known to be the project's). */
  async replaceEndpoints(
    manager: EntityManager,
    routeId: string,
    endpointIds: readonly string[],
  ): Promise<void> {
    await manager.query('DELETE FROM alert_route_endpoint WHERE route_id = $1', [routeId]);
    if (endpointIds.length === 0) return;
    await manager.query(
      `INSERT INTO alert_route_endpoint (route_id, endpoint_id)
       SELECT $1, e FROM unnest($2::uuid[]) AS e ON CONFLICT DO NOTHING`,
      [routeId, endpointIds],
    );
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const deleted: unknown[] = await this.dataSource.query(
      `WITH deleted AS (DELETE FROM alert_route WHERE project_id = $1 AND id = $2 RETURNING id)
       SELECT id FROM deleted`,
      [projectId, id],
    );
    return deleted.length > 0;
  }

  /**
   * The priority after the project's last route (0 for the first). At the largest priority
   * there is no "after": the same priority still evaluates after it, the older route first.
   */
  async nextPriority(manager: EntityManager, projectId: string): Promise<number> {
    const rows: Array<{ next: number }> = await manager.query(
      `SELECT LEAST(COALESCE(max(priority)::bigint + 1, 0), 2147483647)::int AS next
         FROM alert_route WHERE project_id = $1`,
      [projectId],
    );
    return rows[0].next;
  }

  async chainInProject(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      'SELECT 1 FROM escalation_chain WHERE project_id = $1 AND id = $2',
      [projectId, id],
    );
    return rows.length > 0;
  }

  async rosterInProject(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      'SELECT 1 FROM on_call_roster WHERE project_id = $1 AND id = $2',
      [projectId, id],
    );
    return rows.length > 0;
  }

  /** Whether the account holds a membership in the organization the project belongs to. */
  async memberOfProject(
    manager: EntityManager,
    projectId: string,
    accountId: string,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM project p
         JOIN membership m ON m.organization_id = p.organization_id
        WHERE p.id = $1 AND m.account_id = $2`,
      [projectId, accountId],
    );
    return rows.length > 0;
  }
}
