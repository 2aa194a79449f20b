import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fewer index writes per escalation page, the row every escalation step inserts: nothing looks
 * pages up by instance (delivery and acknowledgement reach the instance from the page), and the
 * daily prune's range on created_at, which grows with insertion order, is served by a BRIN
 * index whose upkeep is a summary per block range instead of a B-tree entry per page.
 */
export class EscalationPageIndexes1764000000012 implements MigrationInterface {
  name = 'EscalationPageIndexes1764000000012';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP INDEX escalation_page_instance_idx;
      DROP INDEX escalation_page_created_idx;
      CREATE INDEX escalation_page_created_idx ON escalation_page USING brin (created_at);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP INDEX escalation_page_created_idx;
      CREATE INDEX escalation_page_created_idx ON escalation_page (created_at);
      CREATE INDEX escalation_page_instance_idx ON escalation_page (instance_id);
    `);
  }
}
