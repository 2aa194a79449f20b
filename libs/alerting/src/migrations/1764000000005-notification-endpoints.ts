import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notification endpoints (signed webhook receivers of a project) and their deliveries, each
 * with every HTTP attempt. Deliveries and attempts are kept 90 days (pruned by created_at).
 */
export class NotificationEndpoints1764000000005 implements MigrationInterface {
  name = 'NotificationEndpoints1764000000005';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE notification_endpoint (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        url text NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        events text[] NOT NULL DEFAULT ARRAY['alert_firing', 'alert_resolved']::text[],
        -- Standard Webhooks signing secret (whsec_<base64>); kept readable because every
        -- delivery is signed with it. After a rotation the previous one still signs too
        -- until previous_secret_expires_at, so receivers can switch without dropping events.
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK (events <@ ARRAY['alert_firing', 'alert_resolved']::text[])
      );
      CREATE INDEX notification_endpoint_project_idx
        ON notification_endpoint (project_id, created_at, id);

      CREATE TABLE webhook_delivery (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        endpoint_id uuid NOT NULL REFERENCES notification_endpoint (id) ON DELETE CASCADE,
        project_id uuid NOT NULL,
        -- Null for test pings.
        alert_id uuid REFERENCES alert (id) ON DELETE CASCADE,
        event text NOT NULL CHECK (event IN ('alert_firing', 'alert_resolved', 'endpoint.test')),
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX webhook_delivery_endpoint_idx
        ON webhook_delivery (endpoint_id, created_at DESC, id DESC);
      CREATE INDEX webhook_delivery_created_idx ON webhook_delivery (created_at);
      CREATE INDEX webhook_delivery_alert_idx ON webhook_delivery (alert_id)
        WHERE alert_id IS NOT NULL;

      CREATE TABLE webhook_delivery_attempt (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        delivery_id uuid NOT NULL REFERENCES webhook_delivery (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        response_status integer,
        -- The start of the receiver's answer, for debugging; never the whole body.
        response_body text,
        error text,
        duration_ms integer NOT NULL,
        UNIQUE (delivery_id, attempt)
      );
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE webhook_delivery_attempt;
      DROP TABLE webhook_delivery;
      DROP TABLE notification_endpoint;
    `);
  }
}
