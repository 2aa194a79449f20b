import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The step an active escalation stands on moves from its instance to its due row. A step run
 * updates the due row anyway (its next due time), so the position travels with it, and the
 * instance row (wide: it keeps the chain snapshot) is written only when the escalation ends
 * or starts another pass, instead of on every step.
 */
export class EscalationStepPosition1764000000013 implements MigrationInterface {
  name = 'EscalationStepPosition1764000000013';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      -- The next step to run, 0-based, within the instance's current pass.
      ALTER TABLE escalation_due ADD COLUMN step_index integer NOT NULL DEFAULT 0;
      UPDATE escalation_due d SET step_index = i.step_index
        FROM escalation_instance i WHERE i.id = d.instance_id;
      ALTER TABLE escalation_instance DROP COLUMN step_index;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE escalation_instance ADD COLUMN step_index integer NOT NULL DEFAULT 0;
      UPDATE escalation_instance i SET step_index = d.step_index
        FROM escalation_due d WHERE d.instance_id = i.id;
      ALTER TABLE escalation_due DROP COLUMN step_index;
    `);
  }
}
