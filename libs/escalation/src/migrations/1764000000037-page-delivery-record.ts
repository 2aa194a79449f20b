import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Escalation pages move how their delivery stands into the delivery record (see
 * DeliveryRecord1764000000034): a page keeps its escalation, step, channel, recipient, reply
 * code and claim; its status, reason, attempts, provider id (provider_sid), due, retry and sent
 * times are its `delivery` row of the same id (`retry_at` becomes next_attempt_at, `sent_at`
 * the finished time of a sent page), written with the page in one statement. Deleting pages
 * (the retention prune) deletes their records through the `delivery_forget` trigger.
 *
 * The channel CHECKs of pages and the ledger go: adding a channel is its code, not a migration.
 */
export class PageDeliveryRecord1764000000037 implements MigrationInterface {
  name = 'PageDeliveryRecord1764000000037';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      INSERT INTO delivery
        (id, source, channel, status, reason, attempts, provider_ref, created_at, due_at,
         next_attempt_at, last_attempt_at, finished_at)
      SELECT id, 'escalation_page', channel, status, reason, attempts, provider_sid, created_at,
             due_at, CASE WHEN status = 'pending' THEN coalesce(retry_at, due_at) END,
             CASE WHEN attempts > 0 THEN coalesce(sent_at, created_at) END,
             CASE WHEN status <> 'pending' THEN coalesce(sent_at, created_at) END
        FROM escalation_page;
      ALTER TABLE escalation_page
        DROP CONSTRAINT escalation_page_channel_check,
        DROP COLUMN status, DROP COLUMN reason, DROP COLUMN provider_sid, DROP COLUMN attempts,
        DROP COLUMN due_at, DROP COLUMN sent_at, DROP COLUMN retry_at;
      ALTER TABLE escalation_ledger DROP CONSTRAINT escalation_ledger_channel_check;
      CREATE TRIGGER escalation_page_forget AFTER DELETE ON escalation_page
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION delivery_forget();
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TRIGGER escalation_page_forget ON escalation_page;
      ALTER TABLE escalation_ledger ADD CONSTRAINT escalation_ledger_channel_check
        CHECK (channel IN ('in_app', 'email', 'phone', 'sms'));
      ALTER TABLE escalation_page
        ADD COLUMN status text CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
        ADD COLUMN reason text,
        ADD COLUMN provider_sid text,
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN due_at timestamptz,
        ADD COLUMN sent_at timestamptz,
        ADD COLUMN retry_at timestamptz,
        ADD CONSTRAINT escalation_page_channel_check
          CHECK (channel IN ('in_app', 'email', 'phone', 'sms'));
      UPDATE escalation_page p
         SET status = d.status, reason = d.reason, provider_sid = d.provider_ref,
             attempts = d.attempts, due_at = d.due_at,
             sent_at = CASE WHEN d.status = 'sent' THEN d.finished_at END,
             retry_at = CASE WHEN d.status = 'pending' THEN d.next_attempt_at END
        FROM delivery d WHERE d.id = p.id;
      ALTER TABLE escalation_page
        ALTER COLUMN status SET NOT NULL, ALTER COLUMN due_at SET NOT NULL;
      CREATE INDEX escalation_page_pending_idx ON escalation_page (created_at)
        WHERE status = 'pending';
      DELETE FROM delivery d USING escalation_page p WHERE d.id = p.id;
    `);
  }
}
