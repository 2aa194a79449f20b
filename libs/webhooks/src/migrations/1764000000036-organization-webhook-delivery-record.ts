import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organization webhooks' deliveries (organization_webhook_delivery) move their state and attempts into
 * the delivery record (see DeliveryRecord1764000000034): a delivery keeps its webhook, event and payload; how it
 * stands (status, attempts, last and next attempt) is its `delivery` row of the same id
 * (`succeeded` becomes `sent`, the last failed attempt's error its reason), and its attempts are
 * rows of `delivery_attempt`. Deleting a delivery (the retention prune, a cascade) deletes its
 * record through the `delivery_forget` trigger.
 */
export class OrganizationWebhookDeliveryRecord1764000000036 implements MigrationInterface {
  name = 'OrganizationWebhookDeliveryRecord1764000000036';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      INSERT INTO delivery
        (id, source, channel, status, reason, attempts, created_at, due_at, next_attempt_at,
         last_attempt_at, finished_at)
      SELECT w.id, 'organization_webhook', 'webhook',
             CASE WHEN w.status = 'succeeded' THEN 'sent' ELSE w.status END,
             CASE WHEN w.status <> 'succeeded' THEN (
               SELECT a.error FROM organization_webhook_delivery_attempt a
                WHERE a.delivery_id = w.id ORDER BY a.attempt DESC LIMIT 1) END,
             w.attempts, w.created_at, w.created_at, w.next_attempt_at, w.last_attempt_at,
             CASE WHEN w.status <> 'pending' THEN coalesce(w.last_attempt_at, w.created_at) END
        FROM organization_webhook_delivery w;
      INSERT INTO delivery_attempt
        (delivery_id, attempt, started_at, duration_ms, outcome, reason, response_status,
         response_body)
      SELECT a.delivery_id, a.attempt, a.started_at, a.duration_ms,
             CASE WHEN a.error IS NULL AND a.response_status BETWEEN 200 AND 299
                  THEN 'sent' ELSE 'failed' END,
             a.error, a.response_status, a.response_body
        FROM organization_webhook_delivery_attempt a;
      DROP TABLE organization_webhook_delivery_attempt;
      ALTER TABLE organization_webhook_delivery
        DROP COLUMN status, DROP COLUMN attempts, DROP COLUMN last_attempt_at,
        DROP COLUMN next_attempt_at;
      CREATE TRIGGER organization_webhook_delivery_forget AFTER DELETE ON organization_webhook_delivery
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION delivery_forget();
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER organization_webhook_delivery_forget ON organization_webhook_delivery;
      ALTER TABLE organization_webhook_delivery
        ADD COLUMN status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'succeeded', 'failed')),
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN last_attempt_at timestamptz,
        ADD COLUMN next_attempt_at timestamptz;
      UPDATE organization_webhook_delivery w
         SET status = CASE WHEN d.status = 'sent' THEN 'succeeded' ELSE d.status END,
             attempts = d.attempts, last_attempt_at = d.last_attempt_at,
             next_attempt_at = d.next_attempt_at
        FROM delivery d WHERE d.id = w.id;
      CREATE TABLE organization_webhook_delivery_attempt (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        delivery_id uuid NOT NULL REFERENCES organization_webhook_delivery (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        response_status integer,
        response_body text,
        error text,
        duration_ms integer NOT NULL,
        UNIQUE (delivery_id, attempt)
      );
      INSERT INTO organization_webhook_delivery_attempt
        (delivery_id, attempt, started_at, response_status, response_body, error, duration_ms)
      SELECT a.delivery_id, a.attempt, a.started_at, a.response_status, a.response_body, a.reason,
             a.duration_ms
        FROM delivery_attempt a JOIN organization_webhook_delivery w ON w.id = a.delivery_id;
      DELETE FROM delivery d USING organization_webhook_delivery w WHERE d.id = w.id;
    `);
  }
}
