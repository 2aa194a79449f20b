import type { DataSource } from 'typeorm';

/**
 * Insights computed the slow way, straight from the raw rows of the whole window, to compare
 * the API's answers (read from per-day rollups and the raw rows of the first day) against.
 */

const DAY_MS = 86_400_000;
const share = (part: number, whole: number) =>
  whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 10_000;
const milliseconds = (value: number) => Math.round(value * 1000) / 1000;

/** The raw MTTA samples' percentile_cont 0.5 and 0.9 over alerts starting at `since` or later. */
export async function rawMtta(
  db: DataSource,
  projectId: string,
  since: Date,
): Promise<number[] | null> {
  const [row] = await db.query<Array<{ mtta: number[] | null }>>(
    `SELECT percentile_cont(ARRAY[0.5, 0.9]::float8[])
              WITHIN GROUP (ORDER BY greatest(0, ack_seconds)) AS mtta
       FROM (SELECT extract(epoch FROM
                      (SELECT min(k.created_at) FROM alert_acknowledgement k WHERE k.alert_id = a.id)
                      - a.starts_at)::float8 AS ack_seconds
               FROM alert a WHERE a.project_id = $1 AND a.starts_at >= $2) w
      WHERE ack_seconds IS NOT NULL`,
    [projectId, since],
  );
  return row.mtta;
}

/** The whole Insights response of `days` days before `now`, from the raw rows. */
export async function rawInsights(db: DataSource, projectId: string, now: Date, days: number) {
  const since = new Date(now.getTime() - days * DAY_MS);
  const [alerts] = await db.query<Array<{ alerts: number; acked: number; firing_now: number }>>(
    `SELECT count(*)::int AS alerts,
            count(*) FILTER (WHERE EXISTS (
              SELECT 1 FROM alert_acknowledgement k WHERE k.alert_id = a.id))::int AS acked,
            (SELECT count(*) FROM alert WHERE project_id = $1 AND status = 'firing')::int
              AS firing_now
       FROM alert a WHERE a.project_id = $1 AND a.starts_at >= $2`,
    [projectId, since],
  );
  const mtta = await rawMtta(db, projectId, since);
  const volume = await db.query<Array<{ date: string; severities: Record<string, number> }>>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS date,
            json_object_agg(severity, alerts ORDER BY array_position(
              ARRAY['critical', 'high', 'warning', 'info'], severity)) AS severities
       FROM (SELECT (starts_at AT TIME ZONE 'UTC')::date AS day, severity, count(*)::int AS alerts
               FROM alert WHERE project_id = $1 AND starts_at >= $2 GROUP BY 1, 2) v
      GROUP BY day ORDER BY day`,
    [projectId, since],
  );
  const topNoisy = await db.query<Array<{ alertname: string; occurrences: number }>>(
    `SELECT alertname, occurrences
       FROM (SELECT coalesce(nullif(a.labels ->> 'alertname', ''), '(unknown)') AS alertname,
                    count(*)::int AS occurrences
               FROM alert_event e JOIN alert a ON a.id = e.alert_id AND a.project_id = $1
              WHERE e.project_id = $1 AND e.kind IN ('fired', 'refired') AND e.created_at >= $2
              GROUP BY 1) n
      ORDER BY occurrences DESC, alertname COLLATE "C" LIMIT 10`,
    [projectId, since],
  );
  const [escalations] = await db.query<
    Array<{ opened: number; exhausted: number; repeated: number }>
  >(
    `SELECT count(*)::int AS opened,
            count(*) FILTER (WHERE state = 'exhausted' OR exhausted_at IS NOT NULL)::int
              AS exhausted,
            count(*) FILTER (WHERE repeat_count > 0)::int AS repeated
       FROM escalation_instance WHERE project_id = $1 AND opened_at >= $2`,
    [projectId, since],
  );
  const [acks] = await db.query<Array<{ in_app: number; email: number; phone: number }>>(
    `SELECT count(*) FILTER (WHERE channel = 'in_app')::int AS in_app,
            count(*) FILTER (WHERE channel = 'email')::int AS email,
            count(*) FILTER (WHERE channel IN ('phone', 'sms'))::int AS phone
       FROM escalation_ledger WHERE project_id = $1 AND created_at >= $2 AND action = 'acked'`,
    [projectId, since],
  );
  const load = await db.query(
    `SELECT l.account_id, ac.name, l.notified, l.called, l.acked
       FROM (SELECT account_id,
                    count(*) FILTER (WHERE action = 'notified')::int AS notified,
                    count(*) FILTER (WHERE action = 'called')::int AS called,
                    count(*) FILTER (WHERE action = 'acked')::int AS acked
               FROM escalation_ledger
              WHERE project_id = $1 AND created_at >= $2 AND account_id IS NOT NULL
              GROUP BY account_id) l
       LEFT JOIN account ac ON ac.id = l.account_id
      ORDER BY l.notified + l.called + l.acked DESC, l.account_id`,
    [projectId, since],
  );
  return {
    totals: {
      alerts: alerts.alerts,
      firing_now: alerts.firing_now,
      acked_share: share(alerts.acked, alerts.alerts),
    },
    mtta: {
      median_seconds: mtta ? milliseconds(mtta[0]) : null,
      p90_seconds: mtta ? milliseconds(mtta[1]) : null,
    },
    volume,
    top_noisy: topNoisy,
    escalations: {
      opened: escalations.opened,
      exhausted: escalations.exhausted,
      repeat_rate: share(escalations.repeated, escalations.opened),
      acks_by_channel: acks,
    },
    on_call_load: load,
  };
}

/**
 * Per rollup table, the rows where it and the raw rows disagree (`rollup` the kept row, `raw`
 * the recomputed one; zero rows of a rollup count as absent). Timeline events count from
 * `eventsAfter` (a UTC day) on: the retention prune removes older ones and the rollups keep them.
 */
export async function rollupDrift(
  db: DataSource,
  { eventsAfter = '0001-01-01' }: { eventsAfter?: string } = {},
): Promise<Record<string, unknown[]>> {
  const day = (column: string) => `(${column} AT TIME ZONE 'UTC')::date`;
  const checks: Record<string, [kept: string, raw: string]> = {
    alert_day: [
      `SELECT project_id, day, severity, alerts, acked FROM insights_alert_day
        WHERE alerts <> 0 OR acked <> 0`,
      `SELECT project_id, ${day('starts_at')}, severity, count(*)::int,
              count(*) FILTER (WHERE EXISTS (
                SELECT 1 FROM alert_acknowledgement k WHERE k.alert_id = a.id))::int
         FROM alert a GROUP BY 1, 2, 3`,
    ],
    ack_sample: [
      `SELECT alert_id, project_id, starts_at, severity, seconds, bucket FROM insights_ack_sample`,
      `SELECT a.id, a.project_id, a.starts_at, a.severity, s.seconds,
              insights_mtta_bucket(s.seconds)
         FROM alert a,
              LATERAL (SELECT min(k.created_at) AS first_ack
                         FROM alert_acknowledgement k WHERE k.alert_id = a.id) k,
              LATERAL (SELECT greatest(0, extract(epoch FROM k.first_ack - a.starts_at)::float8)
                         AS seconds) s
        WHERE k.first_ack IS NOT NULL`,
    ],
    ack_day: [
      `SELECT project_id, day, bucket, samples FROM insights_ack_day WHERE samples <> 0`,
      `SELECT a.project_id, ${day('a.starts_at')}, insights_mtta_bucket(s.seconds), count(*)::int
         FROM alert a,
              LATERAL (SELECT min(k.created_at) AS first_ack
                         FROM alert_acknowledgement k WHERE k.alert_id = a.id) k,
              LATERAL (SELECT greatest(0, extract(epoch FROM k.first_ack - a.starts_at)::float8)
                         AS seconds) s
        WHERE k.first_ack IS NOT NULL GROUP BY 1, 2, 3`,
    ],
    event_day: [
      `SELECT project_id, day, alertname, events FROM insights_event_day
        WHERE events <> 0 AND day > '${eventsAfter}'`,
      `SELECT e.project_id, ${day('e.created_at')},
              coalesce(nullif(a.labels ->> 'alertname', ''), '(unknown)'), count(*)::int
         FROM alert_event e JOIN alert a ON a.id = e.alert_id AND a.project_id = e.project_id
        WHERE e.kind IN ('fired', 'refired') AND ${day('e.created_at')} > '${eventsAfter}'
        GROUP BY 1, 2, 3`,
    ],
    escalation_day: [
      `SELECT project_id, day, opened, exhausted, repeated FROM insights_escalation_day
        WHERE opened <> 0 OR exhausted <> 0 OR repeated <> 0`,
      `SELECT project_id, ${day('opened_at')}, count(*)::int,
              count(*) FILTER (WHERE state = 'exhausted' OR exhausted_at IS NOT NULL)::int,
              count(*) FILTER (WHERE repeat_count > 0)::int
         FROM escalation_instance GROUP BY 1, 2`,
    ],
    ledger_day: [
      `SELECT project_id, day, account_id, sum(notified)::int, sum(called)::int, sum(acked)::int
         FROM insights_ledger_day GROUP BY 1, 2, 3`,
      `SELECT project_id, ${day('created_at')}, account_id,
              count(*) FILTER (WHERE action = 'notified')::int,
              count(*) FILTER (WHERE action = 'called')::int,
              count(*) FILTER (WHERE action = 'acked')::int
         FROM escalation_ledger WHERE account_id IS NOT NULL GROUP BY 1, 2, 3`,
    ],
    ack_channel_day: [
      `SELECT project_id, day, channel, sum(acks)::int FROM insights_ack_channel_day
        GROUP BY 1, 2, 3`,
      `SELECT project_id, ${day('created_at')},
              CASE WHEN channel = 'sms' THEN 'phone' ELSE channel END, count(*)::int
         FROM escalation_ledger WHERE action = 'acked' GROUP BY 1, 2, 3`,
    ],
  };
  const drift: Record<string, unknown[]> = {};
  for (const [table, [kept, raw]] of Object.entries(checks)) {
    const rows = await db.query<unknown[]>(
      `WITH kept AS (${kept}), raw AS (${raw})
       SELECT 'rollup' AS side, to_json(d) AS row FROM (SELECT * FROM kept EXCEPT SELECT * FROM raw) d
       UNION ALL
       SELECT 'raw', to_json(d) FROM (SELECT * FROM raw EXCEPT SELECT * FROM kept) d`,
    );
    if (rows.length > 0) drift[table] = rows;
  }
  return drift;
}
