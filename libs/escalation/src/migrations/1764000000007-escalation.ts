import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * On-call rosters (members, external phone contacts, a rotation, overrides), escalation chains
 * and their steps, and what runs them: escalation instances (a snapshot of the chain and where
 * it stands), the pages each executed step wrote (an outbox that deliveries drain), and the
 * ledger of pages, calls and acknowledgements that insights read.
 */
export class Escalation1764000000007 implements MigrationInterface {
  name = 'Escalation1764000000007';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE on_call_roster ADD COLUMN description text NOT NULL DEFAULT '';

      CREATE TABLE on_call_roster_member (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        roster_id uuid NOT NULL REFERENCES on_call_roster (id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        -- Rotation order, 0-based and dense within a roster.
        position integer NOT NULL CHECK (position >= 0),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (roster_id, account_id)
      );
      CREATE INDEX on_call_roster_member_account_idx ON on_call_roster_member (account_id);

      CREATE TABLE on_call_roster_phone_contact (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        roster_id uuid NOT NULL REFERENCES on_call_roster (id) ON DELETE CASCADE,
        label text NOT NULL,
        -- E.164; never shown where an acknowledgement is attributed (only the label is).
        phone_number text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (roster_id, label)
      );

      -- At most one rotation per roster; a roster without one has nobody "on call" by rotation.
      CREATE TABLE on_call_rotation (
        roster_id uuid PRIMARY KEY REFERENCES on_call_roster (id) ON DELETE CASCADE,
        time_zone text NOT NULL,
        start_date date NOT NULL,
        -- Local wall-clock time of each handoff, HH:MM.
        handoff_time text NOT NULL,
        shift_length text NOT NULL CHECK (shift_length IN ('daily', 'weekly', 'hours')),
        shift_hours integer CHECK (shift_hours BETWEEN 1 AND 744),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK ((shift_length = 'hours') = (shift_hours IS NOT NULL))
      );

      CREATE TABLE on_call_override (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        roster_id uuid NOT NULL REFERENCES on_call_roster (id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES account (id) ON DELETE CASCADE,
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK (ends_at > starts_at)
      );
      CREATE INDEX on_call_override_roster_idx ON on_call_override (roster_id, starts_at);
      CREATE INDEX on_call_override_account_idx ON on_call_override (account_id);

      ALTER TABLE escalation_chain
        ADD COLUMN description text NOT NULL DEFAULT '',
        ADD COLUMN re_escalation_after integer CHECK (re_escalation_after BETWEEN 60 AND 604800),
        -- How many more times the whole chain runs after its first pass.
        ADD COLUMN repeats integer NOT NULL DEFAULT 0 CHECK (repeats BETWEEN 0 AND 10);

      CREATE TABLE escalation_step (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        chain_id uuid NOT NULL REFERENCES escalation_chain (id) ON DELETE CASCADE,
        -- Order within the chain, 0-based and dense.
        position integer NOT NULL CHECK (position >= 0),
        -- Seconds after the previous step (after opening, for the first) before this one runs.
        delay_seconds integer NOT NULL DEFAULT 0 CHECK (delay_seconds BETWEEN 0 AND 86400),
        target_type text NOT NULL CHECK (target_type IN
          ('roster_on_call', 'roster', 'member', 'role', 'org_admins', 'phone_contacts')),
        target_roster_id uuid REFERENCES on_call_roster (id) ON DELETE SET NULL,
        target_member_id uuid REFERENCES account (id) ON DELETE SET NULL,
        target_role text CHECK (target_role IN ('Admin', 'Member')),
        channels text[] NOT NULL
          CHECK (cardinality(channels) > 0 AND channels <@ ARRAY['in_app', 'email', 'phone', 'sms']),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX escalation_step_chain_idx ON escalation_step (chain_id, position);
      CREATE INDEX escalation_step_roster_idx ON escalation_step (target_roster_id)
        WHERE target_roster_id IS NOT NULL;
      CREATE INDEX escalation_step_member_idx ON escalation_step (target_member_id)
        WHERE target_member_id IS NOT NULL;

      -- An escalation: the chain as it was at opening and where it stands. A running step
      -- changes only unindexed columns here (with room left on each page), so the update stays
      -- HOT; when the next step is due lives in escalation_due, which the due index is on.
      CREATE TABLE escalation_instance (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        alert_id uuid NOT NULL REFERENCES alert (id) ON DELETE CASCADE,
        -- The firing episode (fired/refired event) that opened it: one instance per episode.
        fired_event_id uuid,
        route_id uuid,
        chain_id uuid REFERENCES escalation_chain (id) ON DELETE SET NULL,
        -- The chain as it was at opening: later edits do not change a running escalation.
        chain_snapshot jsonb NOT NULL,
        state text NOT NULL CHECK (state IN ('active', 'acknowledged', 'resolved', 'exhausted')),
        -- Bumped by each re-escalation restart.
        generation integer NOT NULL DEFAULT 0,
        repeat_count integer NOT NULL DEFAULT 0,
        -- The next step to run, 0-based, within the current pass.
        step_index integer NOT NULL DEFAULT 0,
        -- When the re-escalation of an acknowledged instance is due; null when none is pending.
        re_escalate_at timestamptz,
        opened_at timestamptz NOT NULL,
        acknowledged_at timestamptz,
        resolved_at timestamptz,
        exhausted_at timestamptz,
        updated_at timestamptz NOT NULL
      ) WITH (fillfactor = 50);
      CREATE UNIQUE INDEX escalation_instance_episode_key ON escalation_instance
        (alert_id, (COALESCE(fired_event_id, '00000000-0000-0000-0000-000000000000'::uuid)));
      CREATE INDEX escalation_instance_re_escalate_idx ON escalation_instance (re_escalate_at)
        WHERE re_escalate_at IS NOT NULL;
      CREATE INDEX escalation_instance_project_opened_idx ON escalation_instance (project_id, opened_at);
      CREATE INDEX escalation_instance_chain_idx ON escalation_instance (chain_id);

      -- When the next step of each active instance is due: one row per active instance.
      CREATE TABLE escalation_due (
        instance_id uuid PRIMARY KEY REFERENCES escalation_instance (id) ON DELETE CASCADE,
        due_at timestamptz NOT NULL
      );
      CREATE INDEX escalation_due_at_idx ON escalation_due (due_at);

      -- One page per recipient and channel of an executed step, written with the step (so a
      -- step is paged exactly once) and delivered afterwards (at least once) by its job. No
      -- foreign keys: a burst of due steps writes thousands of pages at once, and per-row key
      -- checks would double that cost; the instance always exists when its pages are written,
      -- and pages of deleted alerts are pruned with the retention job.
      CREATE TABLE escalation_page (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        instance_id uuid NOT NULL,
        project_id uuid NOT NULL,
        alert_id uuid NOT NULL,
        generation integer NOT NULL,
        repeat_count integer NOT NULL,
        step_index integer NOT NULL,
        channel text NOT NULL CHECK (channel IN ('in_app', 'email', 'phone', 'sms')),
        -- Exactly one of: an account, or an external phone contact (label and number).
        account_id uuid,
        contact_label text,
        phone_number text,
        status text NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
        reason text,
        -- The digits an SMS reply must carry to acknowledge this page.
        reply_code text,
        provider_sid text,
        attempts integer NOT NULL DEFAULT 0,
        due_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        sent_at timestamptz
      );
      CREATE INDEX escalation_page_instance_idx ON escalation_page (instance_id);
      CREATE INDEX escalation_page_pending_idx ON escalation_page (created_at)
        WHERE status = 'pending';
      CREATE INDEX escalation_page_created_idx ON escalation_page (created_at);
      CREATE INDEX escalation_page_reply_idx ON escalation_page (phone_number, reply_code)
        WHERE reply_code IS NOT NULL;

      -- History for insights: every delivered page (notified), placed call (called) and
      -- acknowledgement (acked). Kept when the account is deleted (account_id stays; its name
      -- shows as null).
      CREATE TABLE escalation_ledger (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        alert_id uuid,
        instance_id uuid,
        account_id uuid,
        contact_label text,
        action text NOT NULL CHECK (action IN ('notified', 'called', 'acked')),
        channel text NOT NULL CHECK (channel IN ('in_app', 'email', 'phone', 'sms')),
        created_at timestamptz NOT NULL
      );
      CREATE INDEX escalation_ledger_project_idx ON escalation_ledger (project_id, created_at);

      ALTER TABLE alert_acknowledgement
        ADD COLUMN escalation_instance_id uuid REFERENCES escalation_instance (id) ON DELETE SET NULL;
    `);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE alert_acknowledgement DROP COLUMN escalation_instance_id;
      DROP TABLE escalation_ledger;
      DROP TABLE escalation_page;
      DROP TABLE escalation_due;
      DROP TABLE escalation_instance;
      DROP TABLE escalation_step;
      ALTER TABLE escalation_chain
        DROP COLUMN description, DROP COLUMN re_escalation_after, DROP COLUMN repeats;
      DROP TABLE on_call_override;
      DROP TABLE on_call_rotation;
      DROP TABLE on_call_roster_phone_contact;
      DROP TABLE on_call_roster_member;
      ALTER TABLE on_call_roster DROP COLUMN description;
    `);
  }
}
