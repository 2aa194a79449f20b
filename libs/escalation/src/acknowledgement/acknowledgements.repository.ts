import { Injectable } from '@nestjs/common';
import { AlertEventKind, AlertEventsRepository } from '@platform/alerting';
import { DataSource, type EntityManager } from 'typeorm';
import type { PageChannel } from '../chains/chain-snapshot.js';

/** The channels an acknowledgement is counted under (an SMS reply counts as phone). */
export type AckChannel = 'in_app' | 'email' | 'phone';

/** Who acknowledges: an account, or an external phone contact known by its label. */
export type Acknowledger =
  { kind: 'account'; id: string; name: string } | { kind: 'contact'; label: string };

export interface AcknowledgementRecord {
  projectId: string;
  alertId: string;
  by: Acknowledger;
  channel: AckChannel;
  /** The channel the ledger records (`sms` for an SMS reply); defaults to `channel`. */
  ledgerChannel?: PageChannel;
  /** The escalation instance whose page was answered, when there was one. */
  instanceId?: string | null;
  at: Date;
}

/**
 * SQL: whether escalation instance `i` of alert `a` is the one an answer to its page may still
 * acknowledge: the alert fires, the instance did not end with a resolution, and it belongs to
 * the alert's current firing episode, that of its latest fired/refired event as dispatch names
 * episodes (a refire wins a tie). With no such event left (pruned after 90 days of firing) no
 * later episode began either, so the instance is current.
 */
export const CURRENT_INSTANCE = (a: string, i: string) => `(
  ${a}.status = 'firing' AND ${i}.state <> 'resolved' AND coalesce((
    SELECT e.id IS NOT DISTINCT FROM ${i}.fired_event_id FROM alert_event e
     WHERE e.alert_id = ${a}.id AND e.kind IN ('fired', 'refired')
     ORDER BY e.created_at DESC, (e.kind = 'refired') DESC, e.id DESC
     LIMIT 1), true))`;

/** An instance halted by an acknowledgement, with its pending re-escalation (if any). */
export interface HaltedInstance {
  id: string;
  generation: number;
  re_escalate_at: Date | null;
}

@Injectable()
export class AcknowledgementsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly timeline: AlertEventsRepository,
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Locks the alert (acknowledgement changes of one alert run one at a time); its project. */
  async lockAlert(
    manager: EntityManager,
    alertId: string,
    projectId: string | null,
  ): Promise<{ project_id: string; status: string } | null> {
    const rows: Array<{ project_id: string; status: string }> = await manager.query(
      `SELECT project_id, status FROM alert
        WHERE id = $1 AND ($2::uuid IS NULL OR project_id = $2) FOR NO KEY UPDATE`,
      [alertId, projectId],
    );
    return rows[0] ?? null;
  }

  /** Whether `instanceId` is the current escalation of the alert (see CURRENT_INSTANCE). */
  async isCurrentInstance(
    manager: EntityManager,
    alertId: string,
    instanceId: string | null,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM escalation_instance i JOIN alert a ON a.id = i.alert_id
        WHERE i.id = $2 AND a.id = $1 AND ${CURRENT_INSTANCE('a', 'i')}`,
      [alertId, instanceId],
    );
    return rows.length > 0;
  }

  /**
   * Records the acknowledgement, its `acknowledged` timeline event and its ledger row, unless
   * the same acknowledger already acknowledged the alert on the same channel since it last
   * began firing (its latest fired/refired event; ever, when there is none). Answers whether a
   * row was added.
   */
  async record(manager: EntityManager, ack: AcknowledgementRecord): Promise<boolean> {
    const recorded = await this.recordEach(manager, ack, [ack.alertId]);
    return recorded.length > 0;
  }

  /**
   * `record` for each of `alertIds` (the alerts of the same project that one acknowledgement
   * covers), in a fixed number of statements; answers the alerts it added a row for.
   */
  async recordEach(
    manager: EntityManager,
    ack: Omit<AcknowledgementRecord, 'alertId'>,
    alertIds: readonly string[],
  ): Promise<string[]> {
    if (alertIds.length === 0) return [];
    const accountId = ack.by.kind === 'account' ? ack.by.id : null;
    const label = ack.by.kind === 'contact' ? ack.by.label : null;
    const inserted: Array<{ alert_id: string }> = await manager.query(
      `INSERT INTO alert_acknowledgement
         (alert_id, channel, account_id, contact_label, escalation_instance_id, created_at)
       SELECT x.alert_id, $2, $3, $4, $5, $6 FROM unnest($1::uuid[]) AS x (alert_id)
        WHERE NOT EXISTS (
          SELECT 1 FROM alert_acknowledgement k
           WHERE k.alert_id = x.alert_id AND k.channel = $2
             AND (k.account_id = $3 OR k.contact_label = $4)
             AND k.created_at >= coalesce(
               (SELECT max(e.created_at) FROM alert_event e
                 WHERE e.alert_id = x.alert_id AND e.kind IN ('fired', 'refired')),
               '-infinity'::timestamptz))
       RETURNING alert_id`,
      [alertIds, ack.channel, accountId, label, ack.instanceId ?? null, ack.at],
    );
    const recorded = inserted.map((row) => row.alert_id);
    if (recorded.length === 0) return [];
    const by = ack.by.kind === 'account' ? { id: ack.by.id, name: ack.by.name } : { label };
    const channel = ack.ledgerChannel ?? ack.channel;
    await this.timeline.record(
      recorded.map((alertId) => ({
        alertId,
        projectId: ack.projectId,
        kind: AlertEventKind.Acknowledged,
        details: { channel, by },
        at: ack.at,
      })),
      manager,
    );
    await manager.query(
      `INSERT INTO escalation_ledger
         (project_id, alert_id, instance_id, account_id, contact_label, action, channel, created_at)
       SELECT $1, x.alert_id, $3, $4, $5, 'acked', $6, $7 FROM unnest($2::uuid[]) AS x (alert_id)`,
      [ack.projectId, recorded, ack.instanceId ?? null, accountId, label, channel, ack.at],
    );
    return recorded;
  }

  /**
   * Halts every active escalation instance of the alert, and takes over those that ran out of
   * steps unacknowledged (they keep `exhausted_at`); each whose chain has `re_escalation_after`
   * gets its re-escalation due that long after `at`.
   */
  async halt(manager: EntityManager, alertId: string, at: Date): Promise<HaltedInstance[]> {
    // The due rows first: a step run holding one finishes before the instance is halted.
    await manager.query(
      `DELETE FROM escalation_due
        WHERE instance_id IN (SELECT id FROM escalation_instance WHERE alert_id = $1)`,
      [alertId],
    );
    return manager.query(
      `UPDATE escalation_instance
          SET state = 'acknowledged', acknowledged_at = $2, updated_at = $2,
              re_escalate_at = CASE
                WHEN chain_snapshot ->> 're_escalation_after' IS NULL THEN NULL
                ELSE $2::timestamptz
                  + make_interval(secs => (chain_snapshot ->> 're_escalation_after')::int)
              END
        WHERE alert_id = $1 AND state IN ('active', 'exhausted')
        RETURNING id, generation, re_escalate_at`,
      [alertId, at],
    );
  }

  /** Hard-deletes every acknowledgement of the alert; answers how many there were. */
  async clear(manager: EntityManager, alertId: string): Promise<number> {
    // pg answers a DELETE as [rows, affected count].
    const [, removed]: [unknown[], number] = await manager.query(
      'DELETE FROM alert_acknowledgement WHERE alert_id = $1',
      [alertId],
    );
    return removed;
  }

  async recordUnacknowledged(
    manager: EntityManager,
    unack: {
      projectId: string;
      alertId: string;
      by: { id: string; name: string };
      removed: number;
      at: Date;
    },
  ): Promise<void> {
    await this.timeline.record(
      [
        {
          alertId: unack.alertId,
          projectId: unack.projectId,
          kind: AlertEventKind.Unacknowledged,
          details: { by: unack.by, removed: unack.removed },
          at: unack.at,
        },
      ],
      manager,
    );
  }
}
