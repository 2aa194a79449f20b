import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A notifier that may repeat itself (a job run again after a crash between notifying and
 * recording that it did) names its notification with a key: an account gets at most one
 * notification per key. Notifications without a key are not in the index.
 */
export class NotificationIdempotencyKey1764000000015 implements MigrationInterface {
  name = 'NotificationIdempotencyKey1764000000015';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE notification ADD COLUMN idempotency_key text;
      CREATE UNIQUE INDEX notification_idempotency_key ON notification (account_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP INDEX notification_idempotency_key;
      ALTER TABLE notification DROP COLUMN idempotency_key;
    `);
  }
}
