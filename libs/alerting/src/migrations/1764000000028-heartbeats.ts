import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Heartbeat monitors: a project's expectation of a ping at least every `interval_seconds`
 * (plus `grace_seconds`). `ping_nonce` is the changing part of the signed ping URL (a rotation
 * replaces it, so the old URL stops working); the URL itself is not stored. `due_at` is when a
 * heartbeat that is up turns down without a ping (null while pending, before its first ping);
 * the worker's sweep reads due heartbeats through the partial index.
 */
export class Heartbeats1764000000028 implements MigrationInterface {
  name = 'Heartbeats1764000000028';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE heartbeat (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        interval_seconds integer NOT NULL CHECK (interval_seconds > 0),
        grace_seconds integer NOT NULL CHECK (grace_seconds >= 0),
        labels jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(labels) = 'object'),
        ping_nonce text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'up', 'down')),
        last_ping_at timestamptz,
        due_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX heartbeat_project_idx ON heartbeat (project_id, created_at);
      CREATE INDEX heartbeat_due_idx ON heartbeat (due_at) WHERE status = 'up';
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE heartbeat');
  }
}
