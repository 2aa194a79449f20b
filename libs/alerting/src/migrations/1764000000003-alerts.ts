import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Alerts of a project, upserted by fingerprint; their timeline; their acknowledgements (every
 * row counts, the earliest names `acknowledged_by`).
 */
export class Alerts1764000000003 implements MigrationInterface {
  name = 'Alerts1764000000003';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE alert (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        fingerprint text NOT NULL,
        status text NOT NULL CHECK (status IN ('firing', 'resolved')),
        severity text NOT NULL CHECK (severity IN ('critical', 'high', 'warning', 'info')),
        labels jsonb NOT NULL DEFAULT '{}'::jsonb,
        annotations jsonb NOT NULL DEFAULT '{}'::jsonb,
        starts_at timestamptz NOT NULL,
        ends_at timestamptz,
        generator_url text NOT NULL DEFAULT '',
        last_received_at timestamptz NOT NULL,
        -- The route that matched the current firing, set by routing (null: none matched yet;
        -- ingest clears it when a resolved alert fires again).
        route_id uuid,
        -- The ingest receipt that last changed status (or inserted the row): an upsert sees
        -- in its RETURNING whether it made the transition itself, exactly, even when
        -- concurrent ingests of one fingerprint race.
        status_receipt uuid,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (project_id, fingerprint)
      );
      CREATE INDEX alert_project_received_idx ON alert (project_id, last_received_at DESC, id DESC);
      CREATE INDEX alert_project_firing_idx ON alert (project_id) WHERE status = 'firing';

      CREATE TABLE alert_event (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        alert_id uuid NOT NULL REFERENCES alert (id) ON DELETE CASCADE,
        -- The alert's project, copied for project-wide queries; no foreign key of its own:
        -- the alert's cascade already removes events with their project, and ingest writes
        -- events in bulk, where each key check costs.
        project_id uuid NOT NULL,
        kind text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX alert_event_alert_idx ON alert_event (alert_id, created_at, id);
      CREATE INDEX alert_event_created_idx ON alert_event (created_at);

      CREATE TABLE alert_acknowledgement (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        alert_id uuid NOT NULL REFERENCES alert (id) ON DELETE CASCADE,
        channel text NOT NULL CHECK (channel IN ('in_app', 'email', 'phone')),
        -- Exactly one of: an account, or an external phone contact known by its label.
        account_id uuid REFERENCES account (id) ON DELETE SET NULL,
        contact_label text,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX alert_acknowledgement_alert_idx ON alert_acknowledgement (alert_id, created_at, id);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE alert_acknowledgement;
      DROP TABLE alert_event;
      DROP TABLE alert;
    `);
  }
}
