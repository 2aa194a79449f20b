import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The app, cluster and server transitions organizations were told about, one row each: a
 * watcher claims a transition by inserting its row, in the statement that writes the
 * deliveries, so several worker replicas and restarts tell each transition once. Pruned by age
 * with the deliveries: no watcher reports a transition that old again.
 */
export class WebhookEventClaims1764000000025 implements MigrationInterface {
  name = 'WebhookEventClaims1764000000025';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE organization_webhook_event (
        -- What changed: 'helmrelease', 'shoot' or 'server'; its uid (a server's id); and which
        -- transition of it ('deployed:<revision>:<generation>', 'ready', 'active', ...).
        source text NOT NULL,
        object_uid text NOT NULL,
        transition text NOT NULL,
        -- No foreign key: a claim outlives nothing it needs, and must not fail a delivery
        -- statement for an organization deleted meanwhile.
        organization_id uuid NOT NULL,
        event text NOT NULL,
        emitted_at timestamptz NOT NULL,
        PRIMARY KEY (source, object_uid, transition)
      );
      CREATE INDEX organization_webhook_event_emitted_idx
        ON organization_webhook_event (emitted_at);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE organization_webhook_event;`);
  }
}
