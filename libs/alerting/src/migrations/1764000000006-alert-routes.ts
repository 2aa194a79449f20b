import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Stands for "no fired event" in the dispatch claim key (alerts written without a timeline). */
const NO_EVENT = '00000000-0000-0000-0000-000000000000';

/**
 * Alert routes, their matchers and attached notification endpoints. Escalation chains and
 * on-call rosters get their own resources later; their minimal tables are here so routes can
 * reference them now (a deleted chain or roster leaves the route in place, unreferenced).
 */
export class AlertRoutes1764000000006 implements MigrationInterface {
  name = 'AlertRoutes1764000000006';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE escalation_chain (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX escalation_chain_project_idx ON escalation_chain (project_id);

      CREATE TABLE on_call_roster (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX on_call_roster_project_idx ON on_call_roster (project_id);

      CREATE TABLE alert_route (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL DEFAULT '',
        priority integer NOT NULL,
        matchers jsonb NOT NULL DEFAULT '[]'::jsonb,
        escalation_chain_id uuid REFERENCES escalation_chain (id) ON DELETE SET NULL,
        in_app_target_type text NOT NULL DEFAULT 'org_admins'
          CHECK (in_app_target_type IN ('none', 'org_admins', 'roster', 'member', 'role')),
        in_app_target_roster_id uuid REFERENCES on_call_roster (id) ON DELETE SET NULL,
        in_app_target_member_id uuid REFERENCES account (id) ON DELETE SET NULL,
        in_app_target_role text CHECK (in_app_target_role IN ('Admin', 'Member')),
        -- NULL: any severity.
        min_severity_for_notification text
          CHECK (min_severity_for_notification IN ('critical', 'high', 'warning', 'info')),
        cooldown_seconds integer CHECK (cooldown_seconds BETWEEN 1 AND 86400),
        last_notified_at timestamptz,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX alert_route_project_order_idx ON alert_route (project_id, priority, created_at, id);
      CREATE INDEX alert_route_chain_idx ON alert_route (escalation_chain_id)
        WHERE escalation_chain_id IS NOT NULL;
      CREATE INDEX alert_route_roster_idx ON alert_route (in_app_target_roster_id)
        WHERE in_app_target_roster_id IS NOT NULL;
      CREATE INDEX alert_route_member_idx ON alert_route (in_app_target_member_id)
        WHERE in_app_target_member_id IS NOT NULL;

      CREATE TABLE alert_route_endpoint (
        route_id uuid NOT NULL REFERENCES alert_route (id) ON DELETE CASCADE,
        endpoint_id uuid NOT NULL REFERENCES notification_endpoint (id) ON DELETE CASCADE,
        PRIMARY KEY (route_id, endpoint_id)
      );
      CREATE INDEX alert_route_endpoint_endpoint_idx ON alert_route_endpoint (endpoint_id);

      -- One row per firing episode (the alert's latest fired/refired event) that dispatch has
      -- taken on: claimed before anything is sent, so a retried or duplicate dispatch job
      -- never notifies twice. Pruned with the timeline event it belongs to.
      CREATE TABLE alert_dispatch (
        alert_id uuid NOT NULL REFERENCES alert (id) ON DELETE CASCADE,
        fired_event_id uuid REFERENCES alert_event (id) ON DELETE CASCADE,
        route_id uuid,
        outcome text CHECK (outcome IN ('notified', 'suppressed', 'silenced', 'unrouted')),
        created_at timestamptz NOT NULL
      );
      CREATE UNIQUE INDEX alert_dispatch_episode_key
        ON alert_dispatch (alert_id, (COALESCE(fired_event_id, '${NO_EVENT}'::uuid)));
      CREATE INDEX alert_dispatch_fired_event_idx ON alert_dispatch (fired_event_id);
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DROP TABLE alert_dispatch;
      DROP TABLE alert_route_endpoint;
      DROP TABLE alert_route;
      DROP TABLE on_call_roster;
      DROP TABLE escalation_chain;
    `);
  }
}
