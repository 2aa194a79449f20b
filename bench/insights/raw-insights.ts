import type { DataSource } from 'typeorm';

const DAY_MS = 86_400_000;
const share = (part: number, whole: number) =>
  whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 10_000;
const milliseconds = (value: number) => Math.round(value * 1000) / 1000;

/**
 * The insights of `days` days before `now` computed from the raw rows of the whole window
 * (the way they were computed before the rollups, seconds per window at this size), to check
 * the API's answers figure by figure.
 */
export async function rawInsights(db: DataSource, projectId: string, now: Date, days: number) {
  const since = new Date(now.getTime() - days * DAY_MS);
  return db.transaction(async (manager) => {
    await manager.query(`SET LOCAL work_mem = '256MB'`);
    const [row] = await manager.query<Array<Record<string, unknown>>>(
      `WITH windowed AS MATERIALIZED (
         SELECT (a.starts_at AT TIME ZONE 'UTC')::date AS day, a.severity,
                extract(epoch FROM
                  (SELECT min(k.created_at) FROM alert_acknowledgement k WHERE k.alert_id = a.id)
                  - a.starts_at)::float8 AS ack_seconds
           FROM alert a WHERE a.project_id = $1 AND a.starts_at >= $2
       ), ledger AS MATERIALIZED (
         SELECT account_id, action, channel FROM escalation_ledger
          WHERE project_id = $1 AND created_at >= $2
       )
       SELECT (SELECT count(*) FROM windowed)::int AS alerts,
              (SELECT count(ack_seconds) FROM windowed)::int AS acked,
              (SELECT count(*) FROM alert WHERE project_id = $1 AND status = 'firing')::int
                AS firing_now,
              (SELECT percentile_cont(ARRAY[0.5, 0.9]::float8[])
                        WITHIN GROUP (ORDER BY greatest(0, ack_seconds))
                 FROM windowed WHERE ack_seconds IS NOT NULL) AS mtta,
              (SELECT json_agg(v ORDER BY v.date) FROM (
                 SELECT to_char(day, 'YYYY-MM-DD') AS date,
                        json_object_agg(severity, alerts) AS severities
                   FROM (SELECT day, severity, count(*)::int AS alerts FROM windowed
                          GROUP BY 1, 2) d GROUP BY day) v) AS volume,
              (SELECT json_agg(n ORDER BY n.occurrences DESC, n.alertname COLLATE "C") FROM (
                 SELECT coalesce(nullif(a.labels ->> 'alertname', ''), '(unknown)') AS alertname,
                        count(*)::int AS occurrences
                   FROM alert_event e JOIN alert a ON a.id = e.alert_id AND a.project_id = $1
                  WHERE e.project_id = $1 AND e.kind IN ('fired', 'refired')
                    AND e.created_at >= $2
                  GROUP BY 1
                  ORDER BY 2 DESC,
                           coalesce(nullif(a.labels ->> 'alertname', ''), '(unknown)') COLLATE "C"
                  LIMIT 10) n) AS top_noisy,
              (SELECT json_build_object(
                        'opened', count(*),
                        'exhausted', count(*) FILTER (WHERE state = 'exhausted'
                                                        OR exhausted_at IS NOT NULL),
                        'repeated', count(*) FILTER (WHERE repeat_count > 0))
                 FROM escalation_instance WHERE project_id = $1 AND opened_at >= $2)
                AS escalations,
              (SELECT json_build_object(
                        'in_app', count(*) FILTER (WHERE channel = 'in_app'),
                        'email', count(*) FILTER (WHERE channel = 'email'),
                        'phone', count(*) FILTER (WHERE channel IN ('phone', 'sms')))
                 FROM ledger WHERE action = 'acked') AS acks,
              (SELECT json_agg(l ORDER BY l.notified + l.called + l.acked DESC, l.account_id)
                 FROM (SELECT account_id, ac.name,
                              count(*) FILTER (WHERE action = 'notified')::int AS notified,
                              count(*) FILTER (WHERE action = 'called')::int AS called,
                              count(*) FILTER (WHERE action = 'acked')::int AS acked
                         FROM ledger LEFT JOIN account ac ON ac.id = ledger.account_id
                        WHERE account_id IS NOT NULL GROUP BY account_id, ac.name) l)
                AS on_call_load`,
      [projectId, since],
    );
    const mtta = row.mtta as number[] | null;
    const escalations = row.escalations as { opened: number; exhausted: number; repeated: number };
    return {
      totals: {
        alerts: row.alerts,
        firing_now: row.firing_now,
        acked_share: share(row.acked as number, row.alerts as number),
      },
      mtta: {
        median_seconds: mtta ? milliseconds(mtta[0]) : null,
        p90_seconds: mtta ? milliseconds(mtta[1]) : null,
      },
      volume: row.volume ?? [],
      top_noisy: row.top_noisy ?? [],
      escalations: {
        opened: escalations.opened,
        exhausted: escalations.exhausted,
        repeat_rate: share(escalations.repeated, escalations.opened),
        acks_by_channel: row.acks,
      },
      on_call_load: row.on_call_load ?? [],
    };
  });
}
