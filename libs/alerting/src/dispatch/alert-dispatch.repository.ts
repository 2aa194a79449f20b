import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Severity } from '../severity.js';

/** The dispatch claim key's stand-in for an alert written without a fired event. */
export const NO_EVENT = '00000000-0000-0000-0000-000000000000';

export interface ClaimedAlert {
  id: string;
  fingerprint: string;
  severity: Severity;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  fired_event_id: string | null;
}

/** A claimed resolution of an episode that notified, with the route that notified it. */
export interface ClaimedResolution {
  alertId: string;
  routeId: string;
  /** Whether that route bundles (bundle_window_seconds > 0) now. */
  bundling: boolean;
  /** The endpoints attached to that route now (their `alert_resolved` fan-out). */
  endpointIds: string[];
  alert: Omit<ClaimedAlert, 'fired_event_id'>;
}

export type DispatchOutcome = 'notified' | 'suppressed' | 'silenced' | 'unrouted';

/** The latest fired/refired event of alert `a` (a refire wins a tie with a first firing). */
export const LATEST_FIRE = `
  LEFT JOIN LATERAL (
    SELECT e.id, e.created_at FROM alert_event e
     WHERE e.alert_id = a.id AND e.kind IN ('fired', 'refired')
     ORDER BY e.created_at DESC, (e.kind = 'refired') DESC, e.id DESC
     LIMIT 1
  ) f ON true`;

/** What dispatch reads and writes, set-based: a fixed number of statements per job. */
@Injectable()
export class AlertDispatchRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Claims the current firing episode of each still-firing alert among `ids` that no dispatch
   * has claimed yet, and returns those alerts. A concurrent claim of the same episode waits
   * for the first transaction and then gets nothing.
   */
  async claimFiring(
    manager: EntityManager,
    projectId: string,
    ids: readonly string[],
    at: Date,
  ): Promise<ClaimedAlert[]> {
    return manager.query(
      `WITH candidate AS (
         SELECT a.id AS alert_id, f.id AS fired_event_id
           FROM alert a ${LATEST_FIRE}
          WHERE a.project_id = $1 AND a.id = ANY ($2::uuid[]) AND a.status = 'firing'
       ), claimed AS (
         INSERT INTO alert_dispatch (alert_id, fired_event_id, created_at)
         SELECT alert_id, fired_event_id, $3 FROM candidate
         ON CONFLICT (alert_id, (COALESCE(fired_event_id, '${NO_EVENT}'::uuid))) DO NOTHING
         RETURNING alert_id, fired_event_id
       )
       SELECT a.id, a.fingerprint, a.severity, a.labels, a.annotations, c.fired_event_id
         FROM claimed c JOIN alert a ON a.id = c.alert_id`,
      [projectId, ids, at],
    );
  }

  /** Records each claimed episode's route (null: none) and outcome, and the alert's route. */
  async settle(
    manager: EntityManager,
    settled: ReadonlyArray<{
      alertId: string;
      firedEventId: string | null;
      routeId: string | null;
      outcome: DispatchOutcome;
    }>,
  ): Promise<void> {
    if (settled.length === 0) return;
    const params = [
      settled.map((s) => s.alertId),
      settled.map((s) => s.firedEventId ?? NO_EVENT),
      settled.map((s) => s.routeId),
      settled.map((s) => s.outcome),
    ];
    await manager.query(
      `UPDATE alert_dispatch d
          SET route_id = v.route_id, outcome = v.outcome
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[])
              AS v (alert_id, fired_event_id, route_id, outcome)
        WHERE d.alert_id = v.alert_id
          AND COALESCE(d.fired_event_id, '${NO_EVENT}'::uuid) = v.fired_event_id`,
      params,
    );
    await manager.query(
      `UPDATE alert a SET route_id = v.route_id
         FROM unnest($1::uuid[], $2::uuid[]) AS v (alert_id, route_id)
        WHERE a.id = v.alert_id AND a.route_id IS DISTINCT FROM v.route_id`,
      [params[0], params[2]],
    );
  }

  /** Locks the routes (their cooldown state) and answers when each last notified. */
  async lockRoutes(
    manager: EntityManager,
    routeIds: readonly string[],
  ): Promise<Map<string, Date | null>> {
    if (routeIds.length === 0) return new Map();
    const rows: Array<{ id: string; last_notified_at: Date | null }> = await manager.query(
      `SELECT id, last_notified_at FROM alert_route
        WHERE id = ANY ($1::uuid[]) ORDER BY id FOR UPDATE`,
      [routeIds],
    );
    return new Map(rows.map((r) => [r.id, r.last_notified_at]));
  }

  async markNotified(manager: EntityManager, routeIds: readonly string[], at: Date): Promise<void> {
    if (routeIds.length === 0) return;
    await manager.query(
      'UPDATE alert_route SET last_notified_at = $2 WHERE id = ANY ($1::uuid[])',
      [routeIds, at],
    );
  }

  /** The project's organization (null: the project is gone). */
  async organizationOf(projectId: string): Promise<string | null> {
    const rows: Array<{ organization_id: string }> = await this.dataSource.query(
      'SELECT organization_id FROM project WHERE id = $1',
      [projectId],
    );
    return rows[0]?.organization_id ?? null;
  }

  /**
   * Claims the resolution of each resolved alert among `ids` whose current firing episode a
   * dispatch claimed and whose resolution nobody claimed yet, and answers those whose firing
   * notified, in the order of `ids`, with the route that notified it and the endpoints
   * attached to it. A firing that was
   * silenced, suppressed or matched no route notified nobody, so its resolution does not
   * either; a firing never claimed (resolved before its dispatch ran) has nothing to resolve.
   * A concurrent claim of the same resolution waits for the first transaction and then gets
   * nothing.
   */
  async claimResolutions(
    manager: EntityManager,
    projectId: string,
    ids: readonly string[],
    at: Date,
  ): Promise<ClaimedResolution[]> {
    const rows: Array<
      Omit<ClaimedAlert, 'fired_event_id'> & {
        route_id: string;
        bundling: boolean;
        endpoint_ids: string[];
      }
    > = await manager.query(
      `WITH claimed AS (
         UPDATE alert_dispatch d SET resolved_at = $3
           FROM alert a ${LATEST_FIRE}
          WHERE a.project_id = $1 AND a.id = ANY ($2::uuid[]) AND a.status = 'resolved'
            AND d.alert_id = a.id
            AND COALESCE(d.fired_event_id, '${NO_EVENT}'::uuid) = COALESCE(f.id, '${NO_EVENT}'::uuid)
            AND d.resolved_at IS NULL
         RETURNING d.alert_id, d.route_id, d.outcome, a.fingerprint, a.severity, a.labels,
                   a.annotations
       )
       SELECT c.alert_id AS id, c.route_id, c.fingerprint, c.severity, c.labels, c.annotations,
              r.bundle_window_seconds > 0 AS bundling,
              COALESCE(array_agg(re.endpoint_id::text ORDER BY re.endpoint_id)
                         FILTER (WHERE re.endpoint_id IS NOT NULL), '{}') AS endpoint_ids
         FROM claimed c
         JOIN alert_route r ON r.id = c.route_id
         LEFT JOIN alert_route_endpoint re ON re.route_id = c.route_id
        WHERE c.outcome = 'notified'
        GROUP BY c.alert_id, c.route_id, c.fingerprint, c.severity, c.labels, c.annotations,
                 r.bundle_window_seconds
        ORDER BY array_position($2::uuid[], c.alert_id)`,
      [projectId, ids, at],
    );
    return rows.map(({ route_id, bundling, endpoint_ids, ...alert }) => ({
      alertId: alert.id,
      routeId: route_id,
      bundling,
      endpointIds: endpoint_ids,
      alert,
    }));
  }
}
