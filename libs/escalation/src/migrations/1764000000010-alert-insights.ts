import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for alert insights, each covering what its query reads so a window is answered
 * from the index: a project's alerts by starts_at with the severity; its fired and refired
 * timeline events by when they were recorded, with the alert; and its escalation ledger rows
 * by when they were written, with account, action and channel (replacing the plain index on
 * project and time, which nothing else reads). Escalation instances keep their index on
 * (project_id, opened_at): covering their state would make the engine's updates non-HOT.
 */
export class AlertInsights1764000000010 implements MigrationInterface {
  name = 'AlertInsights1764000000010';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE INDEX alert_project_starts_idx ON alert (project_id, starts_at) INCLUDE (severity);
      CREATE INDEX alert_event_project_fired_idx ON alert_event (project_id, created_at)
        INCLUDE (alert_id) WHERE kind IN ('fired', 'refired');
      DROP INDEX escalation_ledger_project_idx;
      CREATE INDEX escalation_ledger_project_idx ON escalation_ledger (project_id, created_at)
        INCLUDE (account_id, action, channel);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP INDEX escalation_ledger_project_idx;
      CREATE INDEX escalation_ledger_project_idx ON escalation_ledger (project_id, created_at);
      DROP INDEX alert_event_project_fired_idx;
      DROP INDEX alert_project_starts_idx;
    `);
  }
}
