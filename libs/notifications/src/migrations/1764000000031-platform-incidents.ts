import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Platform incidents and the batched fan-outs that notify every account of them (and of
 * broadcasts).
 *
 * - `platform_incident`: what a platform admin declared; `affected_features` null means every
 *   account is concerned; open while `resolved_at` is null (shown as a banner meanwhile).
 * - `notification_fanout`: one row per shard of one fan-out (an incident opened or resolved, a
 *   broadcast published). A shard covers the account ids in [range_start, range_end) and
 *   `cursor` is the last account id it has notified, so a fan-out interrupted anywhere resumes
 *   after the last page it finished; `done_at` marks a shard with nobody left.
 */
export class PlatformIncidents1764000000031 implements MigrationInterface {
  name = 'PlatformIncidents1764000000031';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE platform_incident (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        title text NOT NULL,
        body text NOT NULL,
        severity text NOT NULL CHECK (severity IN ('info', 'notice', 'critical')),
        affected_features text[],
        opened_at timestamptz NOT NULL,
        resolved_at timestamptz,
        updated_at timestamptz NOT NULL,
        created_by uuid REFERENCES account (id) ON DELETE SET NULL
      );
      CREATE INDEX platform_incident_open_idx ON platform_incident (opened_at DESC)
        WHERE resolved_at IS NULL;

      CREATE TABLE notification_fanout (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('incident_opened', 'incident_resolved', 'broadcast')),
        subject_id uuid NOT NULL,
        shard integer NOT NULL,
        range_start uuid NOT NULL,
        range_end uuid,
        cursor uuid,
        done_at timestamptz,
        created_at timestamptz NOT NULL,
        UNIQUE (kind, subject_id, shard)
      );
      CREATE INDEX notification_fanout_pending_idx ON notification_fanout (created_at)
        WHERE done_at IS NULL;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE notification_fanout, platform_incident`);
  }
}
