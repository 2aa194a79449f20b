import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';

/**
 * An organization with one project, 50 member accounts (`oncall-<n>@<domain>`) and a two-step
 * chain (a page of a member in-app and by e-mail, then five minutes later another); `count`
 * firing alerts, each with an active escalation instance whose first step falls due at `dueAt`,
 * so every step is due at the same instant. Answers the organization and the members.
 */
export async function seed(
  t: TestApp,
  count: number,
  dueAt: Date,
  domain: string,
): Promise<{ organizationId: string; memberIds: string[] }> {
  const db = t.get(DataSource);
  const [{ id: organizationId }] = await db.query<Array<{ id: string }>>(
    `INSERT INTO organization (name) VALUES ('Escalation bench') RETURNING id`,
  );
  const [{ id: projectId }] = await db.query<Array<{ id: string }>>(
    `INSERT INTO project (organization_id, name) VALUES ($1, 'production') RETURNING id`,
    [organizationId],
  );
  const members: Array<{ id: string }> = await db.query(
    `INSERT INTO account (login, login_key, name, email_verified_at)
     SELECT 'oncall-' || i || '@' || $1, 'oncall-' || i || '@' || $1, 'On-call ' || i, now()
       FROM generate_series(1, 50) i
     RETURNING id`,
    [domain],
  );
  await db.query(
    `INSERT INTO membership (organization_id, account_id, role)
     SELECT $1, id, 'developer' FROM unnest($2::uuid[]) AS id`,
    [organizationId, members.map((m) => m.id)],
  );
  const [{ id: chainId }] = await db.query<Array<{ id: string }>>(
    `INSERT INTO escalation_chain (project_id, name, created_at, updated_at)
     VALUES ($1, 'page the on-call', now(), now()) RETURNING id`,
    [projectId],
  );
  // One chain per member would add nothing: the snapshot names the member per instance.
  await db.query(
    `WITH alerts AS (
       INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations,
                          starts_at, last_received_at, created_at, updated_at)
       SELECT $1, 'bench-' || i, 'firing', 'critical',
              jsonb_build_object('alertname', 'BenchAlert', 'severity', 'critical'),
              jsonb_build_object('summary', 'bench alert ' || i), now(), now(), now(), now()
         FROM generate_series(1, $2::int) i
       RETURNING id
     )
     , instances AS (
     INSERT INTO escalation_instance (project_id, alert_id, chain_id, chain_snapshot, state,
                                      opened_at, updated_at)
     SELECT $1, a.id, $3,
            jsonb_build_object('id', $3::uuid, 'name', 'page the on-call',
              're_escalation_after', NULL, 'repeats', 0,
              'steps', jsonb_build_array(jsonb_build_object(
                'id', gen_random_uuid(), 'position', 0, 'delay_seconds', 0,
                'target_type', 'member', 'target_roster_id', NULL,
                'target_member_id', ($4::uuid[])[1 + (row_number() OVER () % 50)],
                'target_role', NULL, 'channels', jsonb_build_array('in_app', 'email')),
                jsonb_build_object(
                'id', gen_random_uuid(), 'position', 1, 'delay_seconds', 300,
                'target_type', 'member', 'target_roster_id', NULL,
                'target_member_id', ($4::uuid[])[1 + ((row_number() OVER () + 1) % 50)],
                'target_role', NULL, 'channels', jsonb_build_array('in_app', 'email')))),
            'active', now(), now()
       FROM alerts a
     RETURNING id
     )
     INSERT INTO escalation_due (instance_id, due_at) SELECT id, $5 FROM instances`,
    [projectId, count, chainId, members.map((m) => m.id), dueAt],
  );
  return { organizationId, memberIds: members.map((m) => m.id) };
}
