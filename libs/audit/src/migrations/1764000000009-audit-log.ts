import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log, and the auto-resolution schedule of test alerts (the first audited action).
 *
 * `audit_log` keeps who did what where: the acting account (null for the platform itself, and
 * once the account is deleted), the credential it used (`session`: the session cookie, `jwt`:
 * the same session as a bearer, with the JWT's id; `api_token` and `ingest_token` with the
 * token's id), the organization, the project when the action is project-scoped (kept as a
 * plain id, so the entry outlives the project), the action (`alerts.test`) and its target.
 *
 * `test_alert` holds each test alert's firing episode (`starts_at`) and when the worker resolves
 * it. The database, not Redis, is the source of truth, so a lost delayed job is re-enqueued by
 * the worker's sweep; `settled_at` and `outcome` record what the auto-resolution found.
 */
export class AuditLog1764000000009 implements MigrationInterface {
  name = 'AuditLog1764000000009';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audit_log (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        project_id uuid,
        actor_account_id uuid REFERENCES account (id) ON DELETE SET NULL,
        credential_kind text CHECK (credential_kind IN ('session', 'jwt', 'api_token', 'ingest_token')),
        credential_id text,
        action text NOT NULL,
        target_type text,
        target_id text,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL,
        CHECK ((credential_kind IS NULL) = (credential_id IS NULL))
      );
      CREATE INDEX audit_log_organization_idx ON audit_log (organization_id, created_at DESC, id DESC);
      CREATE INDEX audit_log_project_idx ON audit_log (project_id, created_at DESC, id DESC)
        WHERE project_id IS NOT NULL;
      CREATE INDEX audit_log_actor_idx ON audit_log (actor_account_id)
        WHERE actor_account_id IS NOT NULL;

      CREATE TABLE test_alert (
        alert_id uuid PRIMARY KEY REFERENCES alert (id) ON DELETE CASCADE,
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        starts_at timestamptz NOT NULL,
        resolve_at timestamptz NOT NULL,
        settled_at timestamptz,
        outcome text CHECK (outcome IN ('resolved', 'already_resolved')),
        CHECK ((settled_at IS NULL) = (outcome IS NULL))
      );
      CREATE INDEX test_alert_due_idx ON test_alert (resolve_at) WHERE settled_at IS NULL;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE test_alert;
      DROP TABLE audit_log;
    `);
  }
}
