import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Silences and maintenance windows, and the index-backed alert search.
 *
 * Search: `alert.search_text` is the lower-cased fingerprint, alertname label and summary
 * annotation joined by U+001F (a separator a query can only match by containing it, which the
 * list query then rechecks per field). A trigram GIN index that also holds the project (through
 * btree_gin, so one index scan yields a project's candidates) serves selective `q` values; the list
 * index carries `status` and `search_text`, so unselective ones (one or two characters, common
 * words) page and count with index-only scans instead of visiting the wide alert rows. Each
 * field is searched up to a bounded length (fingerprint and alertname 128 characters, summary
 * 360) so the list index entry stays under the B-tree row limit whatever an alert carries.
 *
 * The list index replaces the core migration's (project_id, last_received_at, id) index, which it
 * covers, so ingest maintains one list index rather than two.
 */
export class AlertSuppression1764000000004 implements MigrationInterface {
  name = 'AlertSuppression1764000000004';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE EXTENSION IF NOT EXISTS btree_gin;

      ALTER TABLE alert ADD COLUMN search_text text NOT NULL GENERATED ALWAYS AS (
        lower(
          left(fingerprint, 128) || E'\\x1f' ||
          left(coalesce(labels ->> 'alertname', ''), 128) || E'\\x1f' ||
          left(coalesce(annotations ->> 'summary', ''), 360)
        )
      ) STORED;
      -- LIKE estimates come from the column's histogram: a finer one tells a search matching
      -- one alert in a hundred from one matching one in ten thousand, which decides between
      -- walking the list index in order and collecting trigram matches.
      ALTER TABLE alert ALTER COLUMN search_text SET STATISTICS 1000;
      DROP INDEX IF EXISTS alert_project_received_idx;
      CREATE INDEX alert_list_idx ON alert (project_id, last_received_at DESC, id DESC)
        INCLUDE (status, search_text);
      CREATE INDEX alert_search_trgm_idx ON alert USING gin (project_id, search_text gin_trgm_ops);

      CREATE TABLE alert_silence (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        alert_id uuid NOT NULL REFERENCES alert (id) ON DELETE CASCADE,
        starts_at timestamptz NOT NULL,
        -- Expiring a silence moves ends_at to the moment of expiry; the row stays as history.
        ends_at timestamptz NOT NULL,
        comment text NOT NULL,
        created_by uuid REFERENCES account (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        CHECK (ends_at >= starts_at)
      );
      CREATE INDEX alert_silence_alert_idx ON alert_silence (alert_id, ends_at DESC);

      CREATE TABLE maintenance_window (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL,
        -- [{label, op: eq|re, value}], all must pass; [] covers every alert of the project.
        matchers jsonb NOT NULL DEFAULT '[]'::jsonb,
        created_by uuid REFERENCES account (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK (ends_at > starts_at)
      );
      CREATE INDEX maintenance_window_project_idx ON maintenance_window (project_id, ends_at);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE maintenance_window;
      DROP TABLE alert_silence;
      DROP INDEX alert_search_trgm_idx;
      DROP INDEX alert_list_idx;
      ALTER TABLE alert DROP COLUMN search_text;
      CREATE INDEX alert_project_received_idx ON alert (project_id, last_received_at DESC, id DESC);
    `);
  }
}
