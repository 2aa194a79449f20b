import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Storm control. `alert_route.bundle_window_seconds` (0: off) bundles a route's notifications:
 * the alert that finds no open bundle notifies at once and opens one (`alert_bundle`) for the
 * window; the alerts routed there until `closes_at` join it (`alert_bundle_member`) and are
 * notified together when the worker's sweep flushes it (`flushed_at`). `kind` keeps firing
 * and resolution bundles apart. Bundles live here, not in Redis, so a restarted worker
 * flushes what the one before it opened; the partial index is what the sweep reads.
 */
export class AlertBundles1764000000033 implements MigrationInterface {
  name = 'AlertBundles1764000000033';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE alert_route ADD COLUMN bundle_window_seconds integer NOT NULL DEFAULT 0
        CHECK (bundle_window_seconds BETWEEN 0 AND 3600);

      CREATE TABLE alert_bundle (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        route_id uuid NOT NULL REFERENCES alert_route (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('firing', 'resolved')),
        lead_alert_id uuid NOT NULL REFERENCES alert (id) ON DELETE CASCADE,
        lead_fired_event_id uuid,
        opened_at timestamptz NOT NULL,
        closes_at timestamptz NOT NULL,
        flushed_at timestamptz
      );
      CREATE INDEX alert_bundle_route_idx ON alert_bundle (route_id, kind, closes_at DESC);
      CREATE INDEX alert_bundle_lead_idx ON alert_bundle (lead_alert_id);
      CREATE INDEX alert_bundle_due_idx ON alert_bundle (closes_at) WHERE flushed_at IS NULL;

      CREATE TABLE alert_bundle_member (
        bundle_id uuid NOT NULL REFERENCES alert_bundle (id) ON DELETE CASCADE,
        alert_id uuid NOT NULL REFERENCES alert (id) ON DELETE CASCADE,
        joined_at timestamptz NOT NULL,
        PRIMARY KEY (bundle_id, alert_id)
      );
      CREATE INDEX alert_bundle_member_alert_idx ON alert_bundle_member (alert_id);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE alert_bundle_member;
      DROP TABLE alert_bundle;
      ALTER TABLE alert_route DROP COLUMN bundle_window_seconds;
    `);
  }
}
