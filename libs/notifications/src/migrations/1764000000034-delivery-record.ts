import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One delivery record for every outbound delivery, whatever its source: `delivery` holds how it
 * stands (status, reason, attempts, the provider's id, when it was due, last tried and finished)
 * and `delivery_attempt` one row per attempt. A source row and its delivery share their id
 * (written in one statement, read by joining on id); the delivery has no foreign key to its
 * source, since its sources are several tables: a statement trigger on each source table
 * (`delivery_forget`) deletes the delivery rows of the source rows deleted, however they go
 * (a retention prune, a cascade from a deleted notification, endpoint or account).
 *
 * The channel is not constrained here: adding a channel is its code, not a migration.
 *
 * notify()'s ledger, notification_delivery, keeps the notification and the account; its status
 * (`queued` becomes `pending`), reason and attempts move here. `held` stays a status of its own:
 * an e-mail held for a digest or quiet hours is not the pipeline's to attempt.
 */
export class DeliveryRecord1764000000034 implements MigrationInterface {
  name = 'DeliveryRecord1764000000034';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE delivery (
        id uuid PRIMARY KEY,
        source text NOT NULL,
        channel text NOT NULL,
        status text NOT NULL
          CHECK (status IN ('pending', 'held', 'sent', 'failed', 'skipped')),
        reason text,
        attempts integer NOT NULL DEFAULT 0,
        provider_ref text,
        created_at timestamptz NOT NULL,
        due_at timestamptz NOT NULL,
        next_attempt_at timestamptz,
        last_attempt_at timestamptz,
        finished_at timestamptz
      );
      CREATE INDEX delivery_pending_idx ON delivery (source, created_at) WHERE status = 'pending';

      CREATE TABLE delivery_attempt (
        delivery_id uuid NOT NULL REFERENCES delivery (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('sent', 'failed')),
        reason text,
        -- HTTP deliveries: the receiver's status and the start of its answer, never all of it.
        response_status integer,
        response_body text,
        PRIMARY KEY (delivery_id, attempt)
      );

      CREATE FUNCTION delivery_forget() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM delivery d USING gone g WHERE d.id = g.id;
        RETURN NULL;
      END $$;

      INSERT INTO delivery
        (id, source, channel, status, reason, attempts, created_at, due_at, last_attempt_at,
         finished_at)
      SELECT id, 'notification', channel,
             CASE WHEN status = 'queued' THEN 'pending' ELSE status END, reason, attempts,
             created_at, created_at,
             CASE WHEN attempts > 0 THEN updated_at END,
             CASE WHEN status IN ('sent', 'failed', 'skipped') THEN updated_at END
        FROM notification_delivery;
      ALTER TABLE notification_delivery
        DROP COLUMN channel, DROP COLUMN status, DROP COLUMN reason, DROP COLUMN attempts,
        DROP COLUMN created_at, DROP COLUMN updated_at;
      CREATE TRIGGER notification_delivery_forget AFTER DELETE ON notification_delivery
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION delivery_forget();
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER notification_delivery_forget ON notification_delivery;
      ALTER TABLE notification_delivery
        ADD COLUMN channel text CHECK (channel IN ('email', 'phone', 'sms')),
        ADD COLUMN status text CHECK (status IN ('queued', 'held', 'sent', 'failed', 'skipped')),
        ADD COLUMN reason text,
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN created_at timestamptz,
        ADD COLUMN updated_at timestamptz;
      UPDATE notification_delivery n
         SET channel = d.channel,
             status = CASE WHEN d.status = 'pending' THEN 'queued' ELSE d.status END,
             reason = d.reason, attempts = d.attempts, created_at = d.created_at,
             updated_at = greatest(d.created_at, d.last_attempt_at, d.finished_at)
        FROM delivery d WHERE d.id = n.id;
      ALTER TABLE notification_delivery
        ALTER COLUMN channel SET NOT NULL, ALTER COLUMN status SET NOT NULL,
        ALTER COLUMN created_at SET NOT NULL, ALTER COLUMN updated_at SET NOT NULL;
      DROP TABLE delivery_attempt, delivery;
      DROP FUNCTION delivery_forget();
    `);
  }
}
