import { Injectable } from '@nestjs/common';
import { type EscalationOpening, insertAlertEvents } from '@platform/alerting';
import { preparedQuery } from '@platform/database';
import { DataSource } from 'typeorm';
import type { PageRetry } from './escalation-jobs.js';
import type { StepSnapshot } from '../chains/chain-snapshot.js';
import { RUN_STEPS, type StepsRun, targetKey } from './run-steps.js';

export type { NotifiedPage, StepsRun } from './run-steps.js';

/** A target among due steps: whom a step pages, in its organization, named by `target_key`. */
export interface DueTarget {
  target_key: string;
  organization_id: string;
  step: StepSnapshot;
}

/** One recipient of the steps whose target is `targetKey` (phone number for phone and SMS pages). */
export interface TargetRecipient {
  targetKey: string;
  accountId: string | null;
  contactLabel: string | null;
  phoneNumber: string | null;
  /** Whether this account's in-app pages carry their notification (see RUN_STEPS). */
  notifyInApp: boolean;
}

/** An instance's scheduled step: its generation and pass, and when the step is due. */
export interface ScheduledStep {
  id: string;
  generation: number;
  repeat_count: number;
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

/** The step an instance `i` stands on, by its due row `d`. */
const STEP = `(i.chain_snapshot -> 'steps' -> d.step_index)`;
/** Every read and write of escalation instances, set-based: a fixed number of statements per batch. */
@Injectable()
export class EscalationInstancesRepository {
  constructor(private readonly dataSource: DataSource) {}

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
         RETURNING id, alert_id, project_id, state, generation, repeat_count, chain_snapshot,
                   chain_id
       ), due AS (
         INSERT INTO escalation_due (instance_id, due_at)
         SELECT id, $6::timestamptz
                  + make_interval(secs => (chain_snapshot -> 'steps' -> 0 ->> 'delay_seconds')::int)
           FROM opened WHERE state = 'active'
         RETURNING instance_id, due_at
       ), events AS (
         ${insertAlertEvents(`
         SELECT alert_id, project_id, 'escalation_opened',
                jsonb_build_object('escalation_instance_id', id, 'escalation_chain_id', chain_id,
                                   'chain_name', chain_snapshot ->> 'name', 'state', state),
                $6
           FROM opened`)}
       )
       SELECT o.id, o.generation, o.repeat_count, d.due_at AS next_run_at
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
   * The distinct targets of the firing steps among the first `limit` due by `at` (in due
   * order), one step each, for resolving whom they page before running them.
   */
  async dueTargets(at: Date, limit: number): Promise<DueTarget[]> {
    return this.dataSource.query(
      `SELECT DISTINCT ON (target_key) target_key, organization_id, step FROM (
         SELECT ${targetKey('p.organization_id', STEP)} AS target_key, p.organization_id,
                ${STEP} AS step
           FROM (SELECT instance_id, step_index FROM escalation_due WHERE due_at <= $1
                  ORDER BY due_at LIMIT $2) d
           JOIN escalation_instance i ON i.id = d.instance_id
           JOIN alert a ON a.id = i.alert_id
           JOIN project p ON p.id = i.project_id
          WHERE i.state = 'active' AND a.status = 'firing') due
        ORDER BY target_key`,
      [at, limit],
    );
  }

  /**
   * Runs the first `limit` steps due by `at` that no one else holds, those whose target is among
   * `targets` (whose recipients are `recipients`) or whose alert resolved; see RUN_STEPS. One
   * statement is its own transaction: a step's pages and its instance's next position commit together, so a
   * step is paged once, and a crash before the commit leaves it due. Whoever else stops an
   * instance (acknowledgement, resolution) deletes its due row first and so waits for a run
   * that holds it, never the other way round.
   */
  async runSteps(
    at: Date,
    limit: number,
    targets: readonly string[],
    recipients: readonly TargetRecipient[],
    exhaustedKind: string,
  ): Promise<StepsRun> {
    const [run] = await preparedQuery<StepsRun & { page_ids: string; in_app_page_ids: string }>(
      this.dataSource,
      RUN_STEPS,
      [
        at,
        limit,
        targets,
        recipients.map((r) => r.targetKey),
        recipients.map((r) => r.accountId),
        recipients.map((r) => r.contactLabel),
        recipients.map((r) => r.phoneNumber),
        exhaustedKind,
        recipients.map((r) => r.notifyInApp),
      ],
    );
    const ids = (joined: string) => (joined === '' ? [] : joined.split(','));
    return { ...run, in_app_page_ids: ids(run.in_app_page_ids), page_ids: ids(run.page_ids) };
  }

  /**
   * Runs the batch statement on `connections` pooled connections at once, due by the epoch so
   * that it takes nothing: each connection then holds it prepared with its tables' metadata
   * loaded, and a burst's first batches start at full speed.
   */
  async warm(connections: number, exhaustedKind: string): Promise<void> {
    await Promise.all(
      Array.from({ length: connections }, () =>
        this.runSteps(new Date(0), 1, [], [], exhaustedKind),
      ),
    );
  }

  /** Account phone numbers (verified ones only) for phone and SMS pages. */
  async verifiedPhones(accountIds: readonly string[]) {
    if (accountIds.length === 0) return new Map<string, string>();
    const rows: Array<{ id: string; phone_number: string }> = await this.dataSource.query(
      `SELECT id, phone_number FROM account
        WHERE id = ANY ($1::uuid[]) AND phone_number IS NOT NULL AND phone_verified_at IS NOT NULL`,
      [accountIds],
    );
    return new Map(rows.map((r) => [r.id, r.phone_number]));
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
              SET state = 'active', generation = generation + 1, repeat_count = 0,
                  re_escalate_at = NULL, acknowledged_at = NULL, updated_at = $2
            WHERE id = $1
            RETURNING id, generation, repeat_count
         ), due AS (
           INSERT INTO escalation_due (instance_id, due_at, step_index)
           SELECT id, $2::timestamptz + make_interval(secs => $3::int), 0 FROM restarted
           ON CONFLICT (instance_id) DO UPDATE SET due_at = EXCLUDED.due_at, step_index = 0
           RETURNING due_at
         )
         SELECT r.id, r.generation, r.repeat_count, d.due_at AS next_run_at
           FROM restarted r, due d`,
        [instanceId, at, first_delay],
      );
      await manager.query(
        insertAlertEvents(`
         SELECT alert_id, project_id, 're_escalated',
                jsonb_build_object('escalation_instance_id', id, 'generation', generation), $2
           FROM escalation_instance WHERE id = $1`),
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

  /**
   * Pages still pending well after they were written or due for their retry (their job may be
   * lost); for the sweeper, with their attempts so far (which name their retry job).
   */
  async stalePages(before: Date, limit: number): Promise<PageRetry[]> {
    const rows: Array<{ id: string; attempts: number; channel: string }> =
      await this.dataSource.query(
        `SELECT p.id, d.attempts, p.channel
           FROM delivery d JOIN escalation_page p ON p.id = d.id
          WHERE d.source = 'escalation_page' AND d.status = 'pending' AND d.created_at <= $1
            AND coalesce(d.next_attempt_at, d.created_at) <= $1
          ORDER BY d.created_at LIMIT $2`,
        [before, limit],
      );
    return rows.map((r) => ({
      pageId: r.id,
      inApp: r.channel === 'in_app',
      attempts: r.attempts,
      delayMs: 0,
    }));
  }
}
