import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface VolumeRow {
  date: string;
  severity: string;
  alerts: number;
}

export interface AlertFigures {
  alerts: number;
  acked: number;
  firing_now: number;
  /** [median, p90] in seconds; null when no alert of the window is acknowledged */
  mtta: [number, number] | null;
  /** per UTC day of starts_at and severity, only pairs that occur, oldest day first */
  volume: VolumeRow[];
}

export interface NoisyRow {
  alertname: string;
  occurrences: number;
}

export interface EscalationFigures {
  opened: number;
  exhausted: number;
  repeated: number;
}

export interface LedgerFigures {
  acks: { in_app: number; email: number; phone: number };
  load: Array<{
    account_id: string;
    name: string | null;
    notified: number;
    called: number;
    acked: number;
  }>;
}

export const TOP_NOISY_LIMIT = 10;

/**
 * The aggregate queries behind insights. Every figure is computed by PostgreSQL; only the
 * aggregates travel. `since` bounds each data set on its own time: alerts on `starts_at`,
 * timeline events on when they were recorded, escalations on `opened_at`, ledger rows on when
 * they were written.
 */
@Injectable()
export class InsightsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One aggregate statement in a transaction of its own. A window can hold hundreds of
   * thousands of rows: JIT compilation would cost more than it saves on them, and the sort of
   * the MTTA samples and the groupings should stay in memory.
   */
  private aggregate<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`,
      );
      return manager.query<T[]>(sql, params);
    });
  }

  /**
   * In one pass over the alerts of the window: how many, how many carry an acknowledgement,
   * the MTTA percentiles (seconds from starts_at to the earliest surviving acknowledgement,
   * one sample per alert, never below 0) and the volume per UTC day and severity; besides, the
   * project's firing alerts whatever their age.
   */
  async alerts(projectId: string, since: Date): Promise<AlertFigures> {
    const [row] = await this.aggregate<AlertFigures & { mtta: number[] | null }>(
      `WITH windowed AS MATERIALIZED (
         SELECT (a.starts_at AT TIME ZONE 'UTC')::date AS day, a.severity,
                extract(epoch FROM
                  (SELECT min(k.created_at) FROM alert_acknowledgement k WHERE k.alert_id = a.id)
                  - a.starts_at)::float8 AS ack_seconds
           FROM alert a
          WHERE a.project_id = $1 AND a.starts_at >= $2
       )
       SELECT (SELECT count(*) FROM windowed)::int AS alerts,
              (SELECT count(ack_seconds) FROM windowed)::int AS acked,
              (SELECT count(*) FROM alert WHERE project_id = $1 AND status = 'firing')::int
                AS firing_now,
              (SELECT percentile_cont(ARRAY[0.5, 0.9]::float8[])
                        WITHIN GROUP (ORDER BY greatest(0, ack_seconds))
                 FROM windowed WHERE ack_seconds IS NOT NULL) AS mtta,
              (SELECT coalesce(json_agg(json_build_object(
                        'date', to_char(day, 'YYYY-MM-DD'), 'severity', severity, 'alerts', alerts)
                      ORDER BY day, array_position(
                        ARRAY['critical', 'high', 'warning', 'info'], severity)), '[]'::json)
                 FROM (SELECT day, severity, count(*)::int AS alerts
                         FROM windowed GROUP BY day, severity) v) AS volume`,
      [projectId, since],
    );
    return { ...row, mtta: row.mtta ? [row.mtta[0], row.mtta[1]] : null };
  }

  /**
   * Fired and refired timeline events of the window per alertname label (empty or missing:
   * "(unknown)"), the most first, then by name.
   */
  topNoisy(projectId: string, since: Date): Promise<NoisyRow[]> {
    return this.aggregate(
      `SELECT alertname, occurrences
         FROM (SELECT coalesce(nullif(a.labels ->> 'alertname', ''), '(unknown)') AS alertname,
                      count(*)::int AS occurrences
                 FROM alert_event e
                 JOIN alert a ON a.id = e.alert_id AND a.project_id = $1
                WHERE e.project_id = $1 AND e.kind IN ('fired', 'refired') AND e.created_at >= $2
                GROUP BY 1) n
        ORDER BY occurrences DESC, alertname COLLATE "C"
        LIMIT ${TOP_NOISY_LIMIT}`,
      [projectId, since],
    );
  }

  /** Escalation instances opened in the window, and of those the exhausted and repeated. */
  async escalations(projectId: string, since: Date): Promise<EscalationFigures> {
    const [row] = await this.aggregate<EscalationFigures>(
      `SELECT count(*)::int AS opened,
              count(*) FILTER (WHERE state = 'exhausted' OR exhausted_at IS NOT NULL)::int
                AS exhausted,
              count(*) FILTER (WHERE repeat_count > 0)::int AS repeated
         FROM escalation_instance
        WHERE project_id = $1 AND opened_at >= $2`,
      [projectId, since],
    );
    return row;
  }

  /**
   * Ledger rows of the window: acknowledgements per channel (an SMS reply is a phone
   * acknowledgement), and per account the pages delivered, calls placed and acknowledgements,
   * busiest first. A deleted account keeps its rows and shows without a name.
   */
  async ledger(projectId: string, since: Date): Promise<LedgerFigures> {
    const [row] = await this.aggregate<LedgerFigures>(
      `WITH windowed AS (
         SELECT account_id, action, channel FROM escalation_ledger
          WHERE project_id = $1 AND created_at >= $2
       ), load AS (
         SELECT account_id,
                count(*) FILTER (WHERE action = 'notified')::int AS notified,
                count(*) FILTER (WHERE action = 'called')::int AS called,
                count(*) FILTER (WHERE action = 'acked')::int AS acked
           FROM windowed WHERE account_id IS NOT NULL
          GROUP BY account_id
       )
       SELECT (SELECT json_build_object(
                        'in_app', count(*) FILTER (WHERE channel = 'in_app'),
                        'email', count(*) FILTER (WHERE channel = 'email'),
                        'phone', count(*) FILTER (WHERE channel IN ('phone', 'sms')))
                 FROM windowed WHERE action = 'acked') AS acks,
              (SELECT coalesce(json_agg(json_build_object(
                        'account_id', l.account_id, 'name', ac.name, 'notified', l.notified,
                        'called', l.called, 'acked', l.acked)
                      ORDER BY l.notified + l.called + l.acked DESC, l.account_id), '[]'::json)
                 FROM load l LEFT JOIN account ac ON ac.id = l.account_id) AS load`,
      [projectId, since],
    );
    return row;
  }
}
