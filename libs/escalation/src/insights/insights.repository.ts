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

/** The percentiles of MTTA answered, in this order. */
export const MTTA_PERCENTILES = [0.5, 0.9] as const;

/**
 * A window: from `since` (inclusive, no upper end). `fullDaysFrom` is the first UTC midnight
 * after `since`: days from there on are read from the per-day rollups (see the
 * insights-rollups migration), and the rows of [since, fullDaysFrom) are read raw.
 */
export interface InsightsWindow {
  since: Date;
  fullDaysFrom: Date;
}

/**
 * The aggregate queries behind insights, each a single statement that PostgreSQL answers from
 * the rollups of the window's whole days plus the raw rows of its partial first day; only the
 * aggregates travel. Every figure counts exactly what the raw rows say (the rollups are kept by
 * triggers in the writers' transactions).
 */
@Injectable()
export class InsightsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private query<T>(
    sql: string,
    projectId: string,
    window: InsightsWindow,
    ...more: unknown[]
  ): Promise<T[]> {
    return this.dataSource.query<T[]>(sql, [projectId, window.since, window.fullDaysFrom, ...more]);
  }

  /**
   * How many alerts started in the window, how many of them carry an acknowledgement, and the
   * volume per UTC day and severity; besides, the project's firing alerts whatever their age.
   */
  async alerts(projectId: string, window: InsightsWindow): Promise<AlertFigures> {
    const [row] = await this.query<AlertFigures>(
      `WITH first_day AS MATERIALIZED (
         SELECT severity, count(*)::int AS alerts FROM alert
          WHERE project_id = $1 AND starts_at >= $2 AND starts_at < $3
          GROUP BY severity
       ), full_days AS MATERIALIZED (
         SELECT day, severity, alerts, acked FROM insights_alert_day
          WHERE project_id = $1 AND day >= insights_day($3)
       ), volume AS (
         SELECT insights_day($2) AS day, severity, alerts FROM first_day
         UNION ALL
         SELECT day, severity, alerts FROM full_days WHERE alerts > 0
       )
       SELECT ((SELECT coalesce(sum(alerts), 0) FROM first_day)
                 + (SELECT coalesce(sum(alerts), 0) FROM full_days))::int AS alerts,
              ((SELECT count(*) FROM insights_ack_sample
                 WHERE project_id = $1 AND starts_at >= $2 AND starts_at < $3)
                 + (SELECT coalesce(sum(acked), 0) FROM full_days))::int AS acked,
              (SELECT count(*) FROM alert WHERE project_id = $1 AND status = 'firing')::int
                AS firing_now,
              (SELECT coalesce(json_agg(json_build_object(
                        'date', to_char(day, 'YYYY-MM-DD'), 'severity', severity, 'alerts', alerts)
                      ORDER BY day, array_position(
                        ARRAY['critical', 'high', 'warning', 'info'], severity)), '[]'::json)
                 FROM volume) AS volume`,
      projectId,
      window,
    );
    return row;
  }

  /**
   * The MTTA percentiles (continuous, over one sample per acknowledged alert of the window:
   * seconds from starts_at to its earliest surviving acknowledgement, never below 0), exactly
   * as `percentile_cont` computes them over the raw samples; null when no alert of the window
   * is acknowledged.
   *
   * The samples' histogram over the window (per-day bucket counts, plus the first day's
   * samples) places each needed rank in one bucket; the sample of that rank is then read from
   * the bucket's own samples in value order (from whichever end is nearer), so only a bucket's
   * samples are walked, never the window's.
   */
  async mtta(projectId: string, window: InsightsWindow): Promise<number[] | null> {
    const [row] = await this.query<{ mtta: number[] | null }>(
      `WITH histogram AS (
         SELECT bucket, sum(samples)::bigint AS samples FROM (
           SELECT bucket, samples FROM insights_ack_day
            WHERE project_id = $1 AND day >= insights_day($3)
           UNION ALL
           SELECT bucket, 1 FROM insights_ack_sample
            WHERE project_id = $1 AND starts_at >= $2 AND starts_at < $3
         ) h
         GROUP BY bucket HAVING sum(samples) > 0
       ), placed AS (
         SELECT bucket, samples, sum(samples) OVER (ORDER BY bucket) - samples AS below,
                sum(samples) OVER () AS total
           FROM histogram
       ), ranks AS (
         -- percentile_cont: rank p × (n − 1), between the samples at its floor and ceiling
         SELECT p.i, floor(p.p * (t.total - 1))::bigint AS lo, ceil(p.p * (t.total - 1))::bigint AS hi,
                p.p * (t.total - 1) - floor(p.p * (t.total - 1)) AS proportion
           FROM (SELECT DISTINCT total FROM placed) t,
                unnest($4::float8[]) WITH ORDINALITY AS p (p, i)
       ), valued AS (
         SELECT r.position,
                CASE WHEN r.position - b.below <= (b.samples - 1) / 2 THEN
                  (SELECT s.seconds FROM insights_ack_sample s
                    WHERE s.project_id = $1 AND s.bucket = b.bucket AND s.starts_at >= $2
                    ORDER BY s.seconds OFFSET r.position - b.below LIMIT 1)
                ELSE
                  (SELECT s.seconds FROM insights_ack_sample s
                    WHERE s.project_id = $1 AND s.bucket = b.bucket AND s.starts_at >= $2
                    ORDER BY s.seconds DESC OFFSET b.below + b.samples - 1 - r.position LIMIT 1)
                END AS seconds
           FROM (SELECT DISTINCT unnest(ARRAY[lo, hi]) AS position FROM ranks) r
           JOIN placed b ON r.position >= b.below AND r.position < b.below + b.samples
       )
       SELECT array_agg(lo.seconds + r.proportion * (hi.seconds - lo.seconds) ORDER BY r.i) AS mtta
         FROM ranks r
         JOIN valued lo ON lo.position = r.lo
         JOIN valued hi ON hi.position = r.hi`,
      projectId,
      window,
      [...MTTA_PERCENTILES],
    );
    return row.mtta;
  }

  /**
   * Fired and refired timeline events of the window per alertname label (empty or missing:
   * "(unknown)"), the most first, then by name.
   */
  topNoisy(projectId: string, window: InsightsWindow): Promise<NoisyRow[]> {
    return this.query(
      `SELECT alertname, sum(events)::int AS occurrences
         FROM (SELECT alertname, events FROM insights_event_day
                WHERE project_id = $1 AND day >= insights_day($3)
               UNION ALL
               SELECT insights_alertname(a.labels), 1
                 FROM alert_event e
                 JOIN alert a ON a.id = e.alert_id AND a.project_id = $1
                WHERE e.project_id = $1 AND e.kind IN ('fired', 'refired')
                  AND e.created_at >= $2 AND e.created_at < $3) n
        GROUP BY alertname HAVING sum(events) > 0
        ORDER BY occurrences DESC, alertname COLLATE "C"
        LIMIT ${TOP_NOISY_LIMIT}`,
      projectId,
      window,
    );
  }

  /** Escalation instances opened in the window, and of those the exhausted and repeated. */
  async escalations(projectId: string, window: InsightsWindow): Promise<EscalationFigures> {
    const [row] = await this.query<EscalationFigures>(
      `SELECT coalesce(sum(opened), 0)::int AS opened,
              coalesce(sum(exhausted), 0)::int AS exhausted,
              coalesce(sum(repeated), 0)::int AS repeated
         FROM (SELECT opened, exhausted, repeated FROM insights_escalation_day
                WHERE project_id = $1 AND day >= insights_day($3)
               UNION ALL
               SELECT 1, (state = 'exhausted' OR exhausted_at IS NOT NULL)::int,
                      (repeat_count > 0)::int
                 FROM escalation_instance
                WHERE project_id = $1 AND opened_at >= $2 AND opened_at < $3) e`,
      projectId,
      window,
    );
    return row;
  }

  /**
   * Ledger rows of the window: acknowledgements per channel (an SMS reply is a phone
   * acknowledgement), and per account the pages delivered, calls placed and acknowledgements,
   * busiest first. A deleted account keeps its rows and shows without a name.
   */
  async ledger(projectId: string, window: InsightsWindow): Promise<LedgerFigures> {
    const [row] = await this.query<LedgerFigures>(
      `WITH first_day AS MATERIALIZED (
         SELECT account_id, action, channel FROM escalation_ledger
          WHERE project_id = $1 AND created_at >= $2 AND created_at < $3
       ), load AS (
         SELECT account_id, sum(notified)::int AS notified, sum(called)::int AS called,
                sum(acked)::int AS acked
           FROM (SELECT account_id, notified, called, acked FROM insights_ledger_day
                  WHERE project_id = $1 AND day >= insights_day($3)
                 UNION ALL
                 SELECT account_id, (action = 'notified')::int, (action = 'called')::int,
                        (action = 'acked')::int
                   FROM first_day WHERE account_id IS NOT NULL) l
          GROUP BY account_id HAVING sum(notified + called + acked) > 0
       ), acks AS (
         SELECT channel, acks FROM insights_ack_channel_day
          WHERE project_id = $1 AND day >= insights_day($3)
         UNION ALL
         SELECT CASE WHEN channel = 'sms' THEN 'phone' ELSE channel END, 1
           FROM first_day WHERE action = 'acked'
       )
       SELECT (SELECT json_build_object(
                        'in_app', coalesce(sum(acks) FILTER (WHERE channel = 'in_app'), 0),
                        'email', coalesce(sum(acks) FILTER (WHERE channel = 'email'), 0),
                        'phone', coalesce(sum(acks) FILTER (WHERE channel = 'phone'), 0))
                 FROM acks) AS acks,
              (SELECT coalesce(json_agg(json_build_object(
                        'account_id', l.account_id, 'name', ac.name, 'notified', l.notified,
                        'called', l.called, 'acked', l.acked)
                      ORDER BY l.notified + l.called + l.acked DESC, l.account_id), '[]'::json)
                 FROM load l LEFT JOIN account ac ON ac.id = l.account_id) AS load`,
      projectId,
      window,
    );
    return row;
  }
}
