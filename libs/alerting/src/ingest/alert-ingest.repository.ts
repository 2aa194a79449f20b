import { Injectable } from '@nestjs/common';
import { preparedQuery } from '@platform/database';
import { DataSource, type EntityManager } from 'typeorm';
import type { IngestAlert } from './alertmanager-payload.js';

/** What one receipt changed: alerts that began firing, and alerts that became resolved. */
export interface IngestChanges {
  fired: string[];
  resolved: string[];
}

/**
 * The whole payload in one statement, whatever its size:
 *
 * - `input` unpacks one JSON parameter (parsed once on the server; labels and annotations
 *   come out as jsonb without a second parse);
 * - `upserted` inserts or updates every alert by (project, fingerprint), in fingerprint order
 *   so concurrent payloads lock shared fingerprints in the same order and cannot deadlock.
 *   ON CONFLICT locks the existing row and its SET compares against that row (`a.*`, the
 *   latest committed version, not the statement's snapshot), so the transitions are exact
 *   even when two ingests of one fingerprint race:
 *     new + firing          → insert, `fired`;
 *     new + resolved        → insert as resolved, no event, no dispatch;
 *     firing + firing       → labels, annotations, severity, generator URL and
 *                             last_received_at only;
 *     firing + resolved     → resolved, ends_at = endsAt or now, `resolved`;
 *     resolved + firing     → firing again with the new starts_at, ends_at and route_id
 *                             cleared, `refired`;
 *     resolved + resolved   → update only (the first ends_at stays).
 *   `status_receipt` takes this receipt's id whenever the status changes, so RETURNING tells
 *   which rows this statement moved (RETURNING cannot see the old row); `xmax = 0` marks rows
 *   it inserted;
 * - `events` writes the timeline events of those transitions in the same statement.
 *
 * Triggers on `alert` add the search rows of inserted alerts and rewrite those whose search
 * text changed (see the alert-search migration); a redelivery that keeps the text writes none.
 */
const INGEST_SQL = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($2::jsonb) AS i(
    f text, s text, sv text, l jsonb, a jsonb, st timestamptz, en timestamptz, g text)
),
upserted AS (
  INSERT INTO alert AS a (project_id, fingerprint, status, severity, labels, annotations,
                          starts_at, ends_at, generator_url, last_received_at, status_receipt,
                          created_at, updated_at)
  SELECT $1::uuid, i.f, i.s, i.sv, i.l, i.a, coalesce(i.st, $3::timestamptz),
         CASE WHEN i.s = 'resolved' THEN coalesce(i.en, $3::timestamptz) END,
         i.g, $3::timestamptz, $4::uuid, $3::timestamptz, $3::timestamptz
    FROM input i
   ORDER BY i.f
  ON CONFLICT (project_id, fingerprint) DO UPDATE SET
    status = EXCLUDED.status,
    severity = EXCLUDED.severity,
    labels = EXCLUDED.labels,
    annotations = EXCLUDED.annotations,
    generator_url = EXCLUDED.generator_url,
    last_received_at = EXCLUDED.last_received_at,
    updated_at = EXCLUDED.updated_at,
    starts_at = CASE WHEN a.status = 'resolved' AND EXCLUDED.status = 'firing'
                     THEN EXCLUDED.starts_at ELSE a.starts_at END,
    ends_at = CASE WHEN EXCLUDED.status = 'firing' THEN NULL
                   WHEN a.status = 'resolved' THEN coalesce(a.ends_at, EXCLUDED.ends_at)
                   ELSE EXCLUDED.ends_at END,
    route_id = CASE WHEN a.status = 'resolved' AND EXCLUDED.status = 'firing'
                    THEN NULL ELSE a.route_id END,
    status_receipt = CASE WHEN a.status <> EXCLUDED.status
                          THEN EXCLUDED.status_receipt ELSE a.status_receipt END
  RETURNING a.id, a.status, a.severity, a.starts_at, a.ends_at,
            CASE WHEN a.xmax = 0 THEN CASE WHEN a.status = 'firing' THEN 'fired' END
                 WHEN a.status_receipt = $4::uuid
                 THEN CASE WHEN a.status = 'firing' THEN 'refired' ELSE 'resolved' END
            END AS kind
),
events AS (
  INSERT INTO alert_event (alert_id, project_id, kind, details, created_at)
  SELECT u.id, $1::uuid, u.kind,
         CASE WHEN u.kind = 'resolved' THEN jsonb_build_object('ends_at', u.ends_at)
              ELSE jsonb_build_object('severity', u.severity, 'starts_at', u.starts_at) END,
         $3::timestamptz
    FROM upserted u
   WHERE u.kind IS NOT NULL
)
SELECT id, kind FROM upserted WHERE kind IS NOT NULL`;

const INGEST = { name: 'alert-ingest', text: INGEST_SQL };

/**
 * The statement is prepared once per pooled connection (a named statement) instead of being
 * parsed and planned on every payload: that planning is a tenth of its cost.
 */
@Injectable()
export class AlertIngestRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Upserts alerts with distinct fingerprints (the caller deduplicates), writes their
   * transition events, and answers which ones began firing or became resolved. With `manager`
   * the statement runs on that transaction's connection.
   */
  async ingest(
    projectId: string,
    alerts: readonly IngestAlert[],
    now: Date,
    receiptId: string,
    manager?: EntityManager,
  ): Promise<IngestChanges> {
    const rows = await preparedQuery<{ id: string; kind: string }>(
      this.dataSource,
      INGEST,
      [
        projectId,
        JSON.stringify(
          alerts.map((alert) => ({
            f: alert.fingerprint,
            s: alert.status,
            sv: alert.severity,
            l: alert.labels,
            a: alert.annotations,
            st: alert.startsAt,
            en: alert.endsAt,
            g: alert.generatorUrl,
          })),
        ),
        now,
        receiptId,
      ],
      manager,
    );
    const changes: IngestChanges = { fired: [], resolved: [] };
    for (const row of rows)
      (row.kind === 'resolved' ? changes.resolved : changes.fired).push(row.id);
    return changes;
  }
}
