import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pages are delivered in batches, so BullMQ's one-job-per-page no longer keeps two deliveries
 * of a page apart: a delivery claims its pages first (`claimed_by` names its job, so a retry of
 * that job takes them back; a claim older than a few minutes is a crashed delivery's and lapses),
 * and settling clears the claim. `retry_at` is when a page that failed an attempt is tried
 * again: the sweeper leaves a page alone until then.
 */
export class EscalationPageClaims1764000000020 implements MigrationInterface {
  name = 'EscalationPageClaims1764000000020';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE escalation_page
        ADD COLUMN claimed_by text,
        ADD COLUMN claimed_at timestamptz,
        ADD COLUMN retry_at timestamptz;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE escalation_page
        DROP COLUMN claimed_by, DROP COLUMN claimed_at, DROP COLUMN retry_at;
    `);
  }
}
