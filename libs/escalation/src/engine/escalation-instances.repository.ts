import { Injectable } from '@nestjs/common';
import type { EscalationOpening } from '@platform/alerting';
import { DataSource, type EntityManager } from 'typeorm';
import type { PageChannel, StepSnapshot } from '../chains/chain-snapshot.js';

/**
 * An instance as a step run needs it: the step it stands on and the little of the rest of its
 * chain snapshot that decides where it goes next (read in SQL, not the whole snapshot).
 */
export interface InstanceRow {
  id: string;
  project_id: string;
  alert_id: string;
  organization_id: string;
  alert_status: 'firing' | 'resolved';
  step: StepSnapshot;
  steps_count: number;
  repeats: number;
  /** the delay of the step after this one, or null when this is the last */
  next_delay: number | null;
  /** the delay of the first step (a repeated pass starts with it) */
  first_delay: number;
  generation: number;
  repeat_count: number;
  step_index: number;
  next_run_at: Date;
}

/** Where an instance stands after a step ran (or opened, or restarted). */
export interface InstanceAdvance {
  id: string;
  state: 'active' | 'resolved' | 'exhausted';
  repeat_count: number;
  step_index: number;
  next_run_at: Date | null;
}

export interface NewPage {
  instanceId: string;
  projectId: string;
  alertId: string;
  generation: number;
  repeatCount: number;
  stepIndex: number;
  channel: PageChannel;
  accountId: string | null;
  contactLabel: string | null;
  phoneNumber: string | null;
  replyCode: string | null;
  dueAt: Date;
}

/** An instance's scheduled step: where it stands and when the step is due. */
export interface ScheduledStep {
  id: string;
  generation: number;
  repeat_count: number;
  step_index: number;
  next_run_at: Date;
}

const SNAPSHOT = `
  jsonb_build_object(
    'id', c.id, 'name', c.name,
    're_escalation_after', c.re_escalation_after, 'repeats', c.repeats,
    'steps', coalesce((
      SELECT jsonb_agg(jsonb_build_object(
               'id', s.id, 'position', s.position, 'delay_seconds', s.delay_seconds,
               'target_type', s.target_type, 'target_roster_id', s.target_roster_id,
               'target_member_id', s.target_member_id, 'target_role', s.target_role,
               'channels', to_jsonb(s.channels))
             ORDER BY s.position, s.id)
        FROM escalation_step s WHERE s.chain_id = c.id), '[]'::jsonb))`;

/** Every read and write of escalation instances, set-based: a fixed number of statements per batch. */
@Injectable()
export class EscalationInstancesRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Opens one instance per opening (firing episode) with a snapshot of its chain, the first
   * step due after its delay. A chain of the wrong project opens nothing; an episode that
   * already has an instance keeps it; a chain without steps opens exhausted.
   */
  async open(openings: readonly EscalationOpening[], at: Date): Promise<ScheduledStep[]> {
    return this.dataSource.query(
      `WITH wanted AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::uuid[])
           AS w (project_id, alert_id, fired_event_id, route_id, chain_id)
       ), snapshot AS (
         SELECT w.*, ${SNAPSHOT} AS chain_snapshot
           FROM wanted w JOIN escalation_chain c ON c.id = w.chain_id AND c.project_id = w.project_id
       ), opened AS (
         INSERT INTO escalation_instance
           (project_id, alert_id, fired_event_id, route_id, chain_id, chain_snapshot, state,
            opened_at, exhausted_at, updated_at)
         SELECT project_id, alert_id, fired_event_id, route_id, chain_id, chain_snapshot,
                CASE WHEN jsonb_array_length(chain_snapshot -> 'steps') = 0
                     THEN 'exhausted' ELSE 'active' END,
                $6, CASE WHEN jsonb_array_length(chain_snapshot -> 'steps') = 0 THEN $6::timestamptz END,
                $6
           FROM snapshot
         ON CONFLICT (alert_id, (COALESCE(fired_event_id, '00000000-0000-0000-0000-000000000000'::uuid)))
           DO NOTHING
         RETURNING id, alert_id, project_id, state, generation, repeat_count, step_index,
                   chain_snapshot, chain_id
       ), due AS (
         INSERT INTO escalation_due (instance_id, due_at)
         SELECT id, $6::timestamptz
                  + make_interval(secs => (chain_snapshot -> 'steps' -> 0 ->> 'delay_seconds')::int)
           FROM opened WHERE state = 'active'
         RETURNING instance_id, due_at
       ), events AS (
         INSERT INTO alert_event (alert_id, project_id, kind, details, created_at)
         SELECT alert_id, project_id, 'escalation_opened',
                jsonb_build_object('escalation_instance_id', id, 'escalation_chain_id', chain_id,
                                   'chain_name', chain_snapshot ->> 'name', 'state', state),
                $6
           FROM opened
       )
       SELECT o.id, o.generation, o.repeat_count, o.step_index, d.due_at AS next_run_at
         FROM opened o JOIN due d ON d.instance_id = o.id`,
      [
        openings.map((o) => o.projectId),
        openings.map((o) => o.alertId),
        openings.map((o) => o.firedEventId),
        openings.map((o) => o.routeId),
        openings.map((o) => o.escalationChainId),
        at,
      ],
    );
  }

  /** Resolution: every escalation of those alerts that is not over ends as resolved. */
  async resolve(projectId: string, alertIds: readonly string[], at: Date): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const resolved = `SELECT i.id FROM escalation_instance i JOIN alert a ON a.id = i.alert_id
         WHERE i.project_id = $1 AND i.alert_id = ANY ($2::uuid[]) AND a.status = 'resolved'`;
      // The due rows first: a run holding one finishes its step before the instance ends.
      await manager.query(`DELETE FROM escalation_due WHERE instance_id IN (${resolved})`, [
        projectId,
        alertIds,
      ]);
      const rows: unknown[] = await manager.query(
        `UPDATE escalation_instance
            SET state = 'resolved', resolved_at = $3, re_escalate_at = NULL, updated_at = $3
          WHERE id IN (${resolved}) AND state IN ('active', 'acknowledged', 'exhausted')
          RETURNING id`,
        [projectId, alertIds, at],
      );
      return rows.length;
    });
  }

  /**
   * Locks the due rows of up to `limit` instances whose step is due at `at`, oldest due first;
   * rows another transaction holds are skipped, so concurrent runners split the work. Whoever
   * else stops an instance (acknowledgement, resolution) deletes its due row first and so waits
   * for a run that holds it, never the other way round.
   */
  async claimDue(manager: EntityManager, at: Date, limit: number): Promise<InstanceRow[]> {
    return manager.query(
      `SELECT i.id, i.project_id, i.alert_id, p.organization_id, a.status AS alert_status,
              i.chain_snapshot -> 'steps' -> i.step_index AS step,
              jsonb_array_length(i.chain_snapshot -> 'steps') AS steps_count,
              (i.chain_snapshot ->> 'repeats')::int AS repeats,
              (i.chain_snapshot -> 'steps' -> (i.step_index + 1) ->> 'delay_seconds')::int
                AS next_delay,
              (i.chain_snapshot -> 'steps' -> 0 ->> 'delay_seconds')::int AS first_delay,
              i.generation, i.repeat_count, i.step_index, d.due_at AS next_run_at
         FROM escalation_due d
         JOIN escalation_instance i ON i.id = d.instance_id
         JOIN alert a ON a.id = i.alert_id
         JOIN project p ON p.id = i.project_id
        WHERE d.due_at <= $1 AND i.state = 'active'
        ORDER BY d.due_at
        LIMIT $2
        FOR UPDATE OF d SKIP LOCKED`,
      [at, limit],
    );
  }

  /** Moves claimed instances on: their new position, and their next due time or none. */
  async advance(manager: EntityManager, advances: readonly InstanceAdvance[], at: Date) {
    if (advances.length === 0) return;
    await manager.query(
      `WITH v AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::int[], $5::timestamptz[])
           AS v (id, state, repeat_count, step_index, next_run_at)
       ), moved AS (
         UPDATE escalation_instance i
            SET state = v.state, repeat_count = v.repeat_count, step_index = v.step_index,
                exhausted_at = CASE WHEN v.state = 'exhausted' THEN $6::timestamptz END,
                resolved_at = CASE WHEN v.state = 'resolved' THEN $6::timestamptz END,
                updated_at = $6
           FROM v WHERE i.id = v.id
       ), rescheduled AS (
         UPDATE escalation_due d SET due_at = v.next_run_at
           FROM v WHERE d.instance_id = v.id AND v.state = 'active'
       )
       DELETE FROM escalation_due d USING v WHERE d.instance_id = v.id AND v.state <> 'active'`,
      [
        advances.map((a) => a.id),
        advances.map((a) => a.state),
        advances.map((a) => a.repeat_count),
        advances.map((a) => a.step_index),
        advances.map((a) => a.next_run_at),
        at,
      ],
    );
  }

  /** Account phone numbers (verified ones only) for phone and SMS pages. */
  async verifiedPhones(manager: EntityManager, accountIds: readonly string[]) {
    if (accountIds.length === 0) return new Map<string, string>();
    const rows: Array<{ id: string; phone_number: string }> = await manager.query(
      `SELECT id, phone_number FROM account
        WHERE id = ANY ($1::uuid[]) AND phone_number IS NOT NULL AND phone_verified_at IS NOT NULL`,
      [accountIds],
    );
    return new Map(rows.map((r) => [r.id, r.phone_number]));
  }

  /** Writes the pages of executed steps; answers their ids. */
  async insertPages(manager: EntityManager, pages: readonly NewPage[], at: Date) {
    if (pages.length === 0) return [];
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO escalation_page
         (instance_id, project_id, alert_id, generation, repeat_count, step_index, channel,
          account_id, contact_label, phone_number, status, reply_code, due_at, created_at)
       SELECT v.instance_id, v.project_id, v.alert_id, v.generation, v.repeat_count, v.step_index,
              v.channel, v.account_id, v.contact_label, v.phone_number, 'pending', v.reply_code,
              v.due_at, $13
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::int[], $6::int[],
                     $7::text[], $8::uuid[], $9::text[], $10::text[], $11::text[],
                     $12::timestamptz[])
           AS v (instance_id, project_id, alert_id, generation, repeat_count, step_index,
                 channel, account_id, contact_label, phone_number, reply_code, due_at)
       RETURNING id`,
      [
        pages.map((p) => p.instanceId),
        pages.map((p) => p.projectId),
        pages.map((p) => p.alertId),
        pages.map((p) => p.generation),
        pages.map((p) => p.repeatCount),
        pages.map((p) => p.stepIndex),
        pages.map((p) => p.channel),
        pages.map((p) => p.accountId),
        pages.map((p) => p.contactLabel),
        pages.map((p) => p.phoneNumber),
        pages.map((p) => p.replyCode),
        pages.map((p) => p.dueAt),
        at,
      ],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Restarts an acknowledged instance from step 1 of a new generation when its re-escalation
   * is due and its alert is still firing; an instance whose alert resolved just drops the
   * pending re-escalation. Answers the restarted instance's first step, or null.
   */
  async restart(instanceId: string, generation: number, at: Date): Promise<ScheduledStep | null> {
    return this.dataSource.transaction(async (manager) => {
      const rows: Array<{ alert_status: string; first_delay: number }> = await manager.query(
        `SELECT a.status AS alert_status,
                coalesce((i.chain_snapshot -> 'steps' -> 0 ->> 'delay_seconds')::int, -1) AS first_delay
           FROM escalation_instance i JOIN alert a ON a.id = i.alert_id
          WHERE i.id = $1 AND i.generation = $2 AND i.state = 'acknowledged'
            AND i.re_escalate_at <= $3
          FOR UPDATE OF i`,
        [instanceId, generation, at],
      );
      if (rows.length === 0) return null;
      const [{ alert_status, first_delay }] = rows;
      if (alert_status !== 'firing' || first_delay < 0) {
        await manager.query(
          `UPDATE escalation_instance SET re_escalate_at = NULL, updated_at = $2 WHERE id = $1`,
          [instanceId, at],
        );
        return null;
      }
      const [restarted]: ScheduledStep[] = await manager.query(
        `WITH restarted AS (
           UPDATE escalation_instance
              SET state = 'active', generation = generation + 1, repeat_count = 0, step_index = 0,
                  re_escalate_at = NULL, acknowledged_at = NULL, updated_at = $2
            WHERE id = $1
            RETURNING id, generation, repeat_count, step_index
         ), due AS (
           INSERT INTO escalation_due (instance_id, due_at)
           SELECT id, $2::timestamptz + make_interval(secs => $3::int) FROM restarted
           ON CONFLICT (instance_id) DO UPDATE SET due_at = EXCLUDED.due_at
           RETURNING due_at
         )
         SELECT r.id, r.generation, r.repeat_count, r.step_index, d.due_at AS next_run_at
           FROM restarted r, due d`,
        [instanceId, at, first_delay],
      );
      await manager.query(
        `INSERT INTO alert_event (alert_id, project_id, kind, details, created_at)
         SELECT alert_id, project_id, 're_escalated',
                jsonb_build_object('escalation_instance_id', id, 'generation', generation), $2
           FROM escalation_instance WHERE id = $1`,
        [instanceId, at],
      );
      return restarted;
    });
  }

  /** When steps are due, among those due by `at`; for the sweeper. */
  async dueInstants(at: Date, limit: number): Promise<Date[]> {
    const rows: Array<{ due_at: Date }> = await this.dataSource.query(
      `SELECT DISTINCT due_at FROM (
         SELECT due_at FROM escalation_due WHERE due_at <= $1 ORDER BY due_at LIMIT $2) due`,
      [at, limit],
    );
    return rows.map((r) => r.due_at);
  }

  /** Acknowledged instances whose re-escalation is due; for the sweeper. */
  async dueReEscalations(at: Date, limit: number) {
    return this.dataSource.query<Array<{ id: string; generation: number; re_escalate_at: Date }>>(
      `SELECT id, generation, re_escalate_at FROM escalation_instance
        WHERE re_escalate_at <= $1 AND state = 'acknowledged' ORDER BY re_escalate_at LIMIT $2`,
      [at, limit],
    );
  }

  /** Pages still pending well after they were written (their job may be lost); for the sweeper. */
  async stalePages(before: Date, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM escalation_page WHERE status = 'pending' AND created_at <= $1
        ORDER BY created_at LIMIT $2`,
      [before, limit],
    );
    return rows.map((r) => r.id);
  }
}
