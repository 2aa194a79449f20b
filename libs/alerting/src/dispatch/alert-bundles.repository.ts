import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Severity } from '../severity.js';

export type BundleKind = 'firing' | 'resolved';

export interface NewBundle {
  id: string;
  projectId: string;
  routeId: string;
  kind: BundleKind;
  leadAlertId: string;
  leadFiredEventId: string | null;
  openedAt: Date;
  closesAt: Date;
}

export interface BundleMember {
  bundleId: string;
  alertId: string;
}

/** A bundle whose window closed, taken by one flush. */
export interface DueBundle {
  id: string;
  project_id: string;
  organization_id: string;
  route_id: string;
  kind: BundleKind;
  lead_alert_id: string;
  opened_at: Date;
  closes_at: Date;
}

export interface BundledAlert {
  bundle_id: string;
  id: string;
  fingerprint: string;
  severity: Severity;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Storm control's bundles (see the AlertBundles migration) and their members. */
@Injectable()
export class AlertBundlesRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Per route, its bundle of `kind` open at `at` (opened no later, closing after). */
  async openAt(
    manager: EntityManager,
    routeIds: readonly string[],
    kind: BundleKind,
    at: Date,
  ): Promise<Map<string, string>> {
    if (routeIds.length === 0) return new Map();
    const rows: Array<{ route_id: string; id: string }> = await manager.query(
      `SELECT DISTINCT ON (route_id) route_id, id FROM alert_bundle
        WHERE route_id = ANY ($1::uuid[]) AND kind = $2 AND opened_at <= $3 AND closes_at > $3
        ORDER BY route_id, closes_at DESC`,
      [routeIds, kind, at],
    );
    return new Map(rows.map((r) => [r.route_id, r.id]));
  }

  async insert(
    manager: EntityManager,
    bundles: readonly NewBundle[],
    members: readonly BundleMember[],
    at: Date,
  ): Promise<void> {
    if (bundles.length > 0)
      await manager.query(
        `INSERT INTO alert_bundle (id, project_id, route_id, kind, lead_alert_id,
                                   lead_fired_event_id, opened_at, closes_at)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::uuid[],
                              $6::uuid[], $7::timestamptz[], $8::timestamptz[])`,
        [
          bundles.map((b) => b.id),
          bundles.map((b) => b.projectId),
          bundles.map((b) => b.routeId),
          bundles.map((b) => b.kind),
          bundles.map((b) => b.leadAlertId),
          bundles.map((b) => b.leadFiredEventId),
          bundles.map((b) => b.openedAt),
          bundles.map((b) => b.closesAt),
        ],
      );
    if (members.length > 0)
      await manager.query(
        `INSERT INTO alert_bundle_member (bundle_id, alert_id, joined_at)
         SELECT b, a, $3 FROM unnest($1::uuid[], $2::uuid[]) AS m (b, a)
         ON CONFLICT DO NOTHING`,
        [members.map((m) => m.bundleId), members.map((m) => m.alertId), at],
      );
  }

  /**
   * Marks up to `limit` bundles whose window closed by `now` flushed and answers them; rows a
   * concurrent flush holds are skipped. Rolled back with the caller's transaction.
   */
  claimDue(manager: EntityManager, now: Date, limit: number): Promise<DueBundle[]> {
    return manager.query(
      `WITH due AS (
         SELECT id FROM alert_bundle
          WHERE flushed_at IS NULL AND closes_at <= $1
          ORDER BY closes_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
       ), flushed AS (
         UPDATE alert_bundle b SET flushed_at = $1 FROM due WHERE b.id = due.id
         RETURNING b.id, b.project_id, b.route_id, b.kind, b.lead_alert_id, b.opened_at,
                   b.closes_at
       )
       SELECT f.*, p.organization_id FROM flushed f JOIN project p ON p.id = f.project_id
        ORDER BY f.closes_at, f.id`,
      [now, limit],
    );
  }

  /** The members of the bundles, in the order they joined. */
  membersOf(manager: EntityManager, bundleIds: readonly string[]): Promise<BundledAlert[]> {
    if (bundleIds.length === 0) return Promise.resolve([]);
    return manager.query(
      `SELECT m.bundle_id, a.id, a.fingerprint, a.severity, a.labels, a.annotations
         FROM alert_bundle_member m JOIN alert a ON a.id = m.alert_id
        WHERE m.bundle_id = ANY ($1::uuid[])
        ORDER BY m.joined_at, a.starts_at, a.fingerprint, a.id`,
      [bundleIds],
    );
  }

  /**
   * The alerts of the firing bundles `alertId` leads whose firing episode is the one that
   * opened them: acknowledging the lead acknowledges these.
   */
  async ledBy(manager: EntityManager, alertId: string): Promise<string[]> {
    const rows: Array<{ alert_id: string }> = await manager.query(
      `SELECT DISTINCT m.alert_id
         FROM alert_bundle b JOIN alert_bundle_member m ON m.bundle_id = b.id
        WHERE b.lead_alert_id = $1 AND b.kind = 'firing'
          AND b.lead_fired_event_id IS NOT DISTINCT FROM (
            SELECT e.id FROM alert_event e
             WHERE e.alert_id = $1 AND e.kind IN ('fired', 'refired')
             ORDER BY e.created_at DESC, (e.kind = 'refired') DESC, e.id DESC LIMIT 1)
        ORDER BY m.alert_id`,
      [alertId],
    );
    return rows.map((r) => r.alert_id);
  }
}
