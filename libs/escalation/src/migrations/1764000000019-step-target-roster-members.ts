import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The step target type `roster` (every member of the roster) becomes `roster_members`, so that
 * `roster` no longer means every member on a step and whoever is on call on an alert route.
 * Stored steps and the chain snapshots of escalations (running ones resolve their steps from
 * the snapshot) are rewritten here rather than read as an alias: the type, the resolver and the
 * views then know one value, and a snapshot taken before this release resolves like one taken
 * after. The API still accepts `roster` on input and stores it as `roster_members`.
 */
export class StepTargetRosterMembers1764000000019 implements MigrationInterface {
  name = 'StepTargetRosterMembers1764000000019';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(renamed('roster', 'roster_members'));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(renamed('roster_members', 'roster'));
  }
}

const TYPES = (members: string) =>
  `'roster_on_call', '${members}', 'member', 'role', 'org_admins', 'phone_contacts'`;

function renamed(from: string, to: string): string {
  return `
    ALTER TABLE escalation_step DROP CONSTRAINT escalation_step_target_type_check;
    UPDATE escalation_step SET target_type = '${to}' WHERE target_type = '${from}';
    ALTER TABLE escalation_step ADD CONSTRAINT escalation_step_target_type_check
      CHECK (target_type IN (${TYPES(to)}));

    UPDATE escalation_instance i
       SET chain_snapshot = jsonb_set(i.chain_snapshot, '{steps}', (
             SELECT jsonb_agg(CASE WHEN s ->> 'target_type' = '${from}'
                                   THEN jsonb_set(s, '{target_type}', to_jsonb('${to}'::text))
                                   ELSE s END
                              ORDER BY n)
               FROM jsonb_array_elements(i.chain_snapshot -> 'steps') WITH ORDINALITY AS e (s, n)))
     WHERE i.chain_snapshot -> 'steps' @> '[{"target_type": "${from}"}]';
  `;
}
