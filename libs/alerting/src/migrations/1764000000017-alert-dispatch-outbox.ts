import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The alert timeline as the outbox of dispatch: a notification an ingest committed but whose
 * `alerts.dispatch` job Redis lost is found again from PostgreSQL by the worker's sweep.
 *
 * - `alert_dispatch_sweep` (one row) is how far the sweep has read the timeline: the
 *   `created_at` and id of the last transition event it took on (null: never swept).
 * - `alert_dispatch_owed` holds the transition events the sweep found still owed (a firing
 *   or resolution nobody claimed), until a dispatch claims them or they are given up; each
 *   row is enqueued again from `next_attempt_at`.
 *
 * The sweep reads the timeline through `alert_event_created_idx`, skipping the other kinds of
 * events as it goes: an index of transition events only would read a page of them about a
 * millisecond faster and cost every ingest that writes one a further index entry.
 */
export class AlertDispatchOutbox1764000000017 implements MigrationInterface {
  name = 'AlertDispatchOutbox1764000000017';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE alert_dispatch_sweep (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        swept_at timestamptz,
        swept_event_id uuid
      );
      INSERT INTO alert_dispatch_sweep DEFAULT VALUES;

      CREATE TABLE alert_dispatch_owed (
        event_id uuid PRIMARY KEY REFERENCES alert_event (id) ON DELETE CASCADE,
        alert_id uuid NOT NULL,
        project_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('fired', 'refired', 'resolved')),
        event_at timestamptz NOT NULL,
        next_attempt_at timestamptz NOT NULL
      );
      CREATE INDEX alert_dispatch_owed_due_idx
        ON alert_dispatch_owed (next_attempt_at, event_at, event_id);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE alert_dispatch_owed;
      DROP TABLE alert_dispatch_sweep;
    `);
  }
}
