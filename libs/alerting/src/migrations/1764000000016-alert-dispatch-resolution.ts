import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `alert_dispatch.resolved_at` claims a firing episode's resolution (its `alert_resolved`
 * fan-out) once, as the row claims its firing. Episodes that ended before this migration (of
 * resolved alerts, or followed by a later episode) were fanned out without a claim: they are
 * marked as handed over, so nothing sends them again.
 */
export class AlertDispatchResolution1764000000016 implements MigrationInterface {
  name = 'AlertDispatchResolution1764000000016';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE alert_dispatch ADD COLUMN resolved_at timestamptz;
      UPDATE alert_dispatch d SET resolved_at = now()
        FROM alert a
       WHERE a.id = d.alert_id
         AND (a.status = 'resolved'
              OR EXISTS (SELECT 1 FROM alert_dispatch later
                          WHERE later.alert_id = d.alert_id AND later.created_at > d.created_at));
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE alert_dispatch DROP COLUMN resolved_at');
  }
}
