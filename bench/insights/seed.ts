import { performance } from 'node:perf_hooks';
import type { TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';

const log = (line: string) => process.stderr.write(`  ${line}\n`);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

/** The tables insights read; their secondary indexes are rebuilt after the load. */
const TABLES = [
  'alert',
  'alert_event',
  'alert_acknowledgement',
  'escalation_instance',
  'escalation_ledger',
];

/** Severity by i % 10: critical 10 %, high 20 %, warning 40 %, info 30 %. */
const SEVERITY = `(ARRAY['critical', 'high', 'high', 'warning', 'warning', 'warning', 'warning',
                         'info', 'info', 'info'])[1 + i % 10]`;

/**
 * `count` alerts of one project with starts_at spread evenly over the 90 days before `now`,
 * and around them what production writes:
 * - alertnames skewed like real noise (a few names fire most): 200 names, name k for a
 *   fraction (u³) of the alerts; 5 % firing, the rest resolved after 30 minutes;
 * - timeline events: fired (two hours before starts_at for every fifth alert, which refired
 *   at starts_at; every 25th refired once more), notified, and resolved: about 3.2 per alert;
 * - acknowledgements for 60 % of the alerts, 10 s to an hour after starts_at (skewed towards
 *   quick ones), in-app, e-mail or phone; a second one (e-mail) for every 15th alert;
 * - an escalation instance for every critical and high alert (30 %): acknowledged, exhausted,
 *   active or resolved; a quarter of them repeated;
 * - ledger rows: each instance's in-app and e-mail pages, a call where nobody acknowledged,
 *   and one acknowledgement row per acknowledgement (some phone ones as SMS replies).
 * Set-based statements only; foreign-key checks and triggers are off for the load (no search
 * rows are written: insights do not read them; the insights rollups are rebuilt afterwards by
 * `rebuildRollups`), and secondary indexes are dropped and rebuilt from their own definitions,
 * as a bulk load would.
 */
export async function seedInsights(
  t: TestApp,
  projectId: string,
  accountIds: string[],
  count: number,
  now: Date,
): Promise<void> {
  const db = t.get(DataSource);
  await db.transaction(async (manager) => {
    const q = (sql: string, params: unknown[] = []) => manager.query(sql, params);
    await q(`SET LOCAL session_replication_role = replica`);
    await q(`SET LOCAL maintenance_work_mem = '512MB'`);
    await q(`SET LOCAL work_mem = '256MB'`);
    const indexes: Array<{ name: string; definition: string }> = await q(
      `SELECT i.indexname AS name, i.indexdef AS definition
         FROM pg_indexes i
        WHERE i.tablename = ANY ($1) AND i.schemaname = current_schema()
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
      [TABLES],
    );
    for (const index of indexes) await q(`DROP INDEX ${index.name}`);

    const step = async (what: string, sql: string, params: unknown[]) => {
      const started = performance.now();
      await q(sql, params);
      log(`${what} in ${seconds(started)} s`);
    };
    await step(
      'alerts',
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations,
                          starts_at, ends_at, last_received_at, created_at, updated_at)
       SELECT $1, 'bench-' || i, CASE WHEN i % 20 = 0 THEN 'firing' ELSE 'resolved' END,
              ${SEVERITY},
              jsonb_build_object(
                'alertname', 'Alert' || floor(200 * power(((i::bigint * 2654435761) % 1000003) / 1000003.0, 3))::int,
                'severity', ${SEVERITY}, 'instance', 'host-' || (i % 500) || ':9100'),
              jsonb_build_object('summary', 'bench alert ' || i),
              s, CASE WHEN i % 20 = 0 THEN NULL ELSE s + interval '30 minutes' END, s, s, s
         FROM generate_series(1, $2::int) AS i,
              LATERAL (SELECT date_trunc('second', $3::timestamptz
                                - make_interval(secs => i::bigint * 7776000 / $2::int)) AS s) AS x`,
      [projectId, count, now],
    );
    // The load's own numbering, for the rows that hang off each alert.
    await q(
      `CREATE TEMP TABLE bench_alert ON COMMIT DROP AS
       SELECT id, substr(fingerprint, 7)::int AS i, severity, status, starts_at, ends_at
         FROM alert WHERE project_id = $1`,
      [projectId],
    );
    await step(
      'timeline events',
      `INSERT INTO alert_event (alert_id, project_id, kind, details, created_at)
       SELECT a.id, $1, k.kind, '{}'::jsonb, k.at
         FROM bench_alert a,
              LATERAL (VALUES
                ('fired', CASE WHEN a.i % 5 = 0 THEN a.starts_at - interval '2 hours'
                               ELSE a.starts_at END, true),
                ('refired', a.starts_at, a.i % 5 = 0),
                ('refired', a.starts_at - interval '1 hour', a.i % 25 = 0),
                ('notified', a.starts_at + interval '1 second', true),
                ('resolved', a.ends_at, a.ends_at IS NOT NULL)) AS k (kind, at, present)
        WHERE k.present`,
      [projectId],
    );
    await step(
      'acknowledgements',
      `INSERT INTO alert_acknowledgement (alert_id, channel, account_id, created_at)
       SELECT a.id,
              (ARRAY['in_app', 'in_app', 'in_app', 'in_app', 'in_app', 'email', 'email', 'email',
                     'phone', 'phone'])[1 + (a.i / 5) % 10],
              ($1::uuid[])[1 + a.i % cardinality($1::uuid[])],
              a.starts_at + make_interval(
                secs => 10 + 3600 * power(((a.i::bigint * 40503) % 65537) / 65537.0, 2))
         FROM bench_alert a WHERE a.i % 5 < 3
       UNION ALL
       SELECT a.id, 'email', ($1::uuid[])[1 + (a.i + 7) % cardinality($1::uuid[])],
              a.starts_at + interval '2 hours'
         FROM bench_alert a WHERE a.i % 15 = 0`,
      [accountIds],
    );
    await step(
      'escalation instances',
      `INSERT INTO escalation_instance (project_id, alert_id, chain_snapshot, state,
                                        repeat_count, opened_at, acknowledged_at, exhausted_at,
                                        updated_at)
       SELECT $1, a.id, '{}'::jsonb,
              CASE WHEN a.i % 5 < 3 THEN 'acknowledged' WHEN a.i % 7 = 0 THEN 'exhausted'
                   WHEN a.status = 'firing' THEN 'active' ELSE 'resolved' END,
              CASE WHEN a.i % 4 = 0 THEN 1 ELSE 0 END,
              a.starts_at + interval '5 seconds',
              CASE WHEN a.i % 5 < 3 THEN a.starts_at + interval '1 minute' END,
              CASE WHEN a.i % 5 >= 3 AND a.i % 7 = 0 THEN a.starts_at + interval '30 minutes' END,
              a.starts_at
         FROM bench_alert a WHERE a.severity IN ('critical', 'high')`,
      [projectId],
    );
    await step(
      'ledger rows',
      `INSERT INTO escalation_ledger (project_id, alert_id, instance_id, account_id, action,
                                      channel, created_at)
       SELECT e.project_id, e.alert_id, e.id,
              ($2::uuid[])[1 + abs(hashtext(e.id::text)) % cardinality($2::uuid[])],
              k.action, k.channel, e.opened_at + k.after
         FROM escalation_instance e,
              LATERAL (VALUES ('notified', 'in_app', interval '1 second', true),
                              ('notified', 'email', interval '2 seconds', true),
                              ('called', 'phone', interval '5 minutes', e.acknowledged_at IS NULL))
                AS k (action, channel, after, present)
        WHERE e.project_id = $1 AND k.present
       UNION ALL
       SELECT $1, k.alert_id, NULL, k.account_id, 'acked',
              CASE WHEN k.channel = 'phone' AND k.created_at::time < '12:00' THEN 'sms'
                   ELSE k.channel END,
              k.created_at
         FROM alert_acknowledgement k JOIN bench_alert a ON a.id = k.alert_id`,
      [projectId, accountIds],
    );

    const built = performance.now();
    for (const index of indexes) {
      const started = performance.now();
      await q(index.definition);
      log(`  ${index.name} in ${seconds(started)} s`);
    }
    log(`${indexes.length} indexes rebuilt in ${seconds(built)} s`);
  });
  const vacuumed = performance.now();
  for (const table of TABLES) await db.query(`VACUUM ANALYZE ${table}`);
  log(`VACUUM ANALYZE in ${seconds(vacuumed)} s`);
  const [counts]: Array<Record<string, number>> = await db.query(
    `SELECT (SELECT count(*) FROM alert WHERE project_id = $1)::int AS alerts,
            (SELECT count(*) FROM alert_event WHERE project_id = $1)::int AS events,
            (SELECT count(*) FROM alert_acknowledgement k JOIN alert a ON a.id = k.alert_id
              WHERE a.project_id = $1)::int AS acknowledgements,
            (SELECT count(*) FROM escalation_instance WHERE project_id = $1)::int AS escalations,
            (SELECT count(*) FROM escalation_ledger WHERE project_id = $1)::int AS ledger_rows`,
    [projectId],
  );
  log(
    Object.entries(counts)
      .map(([what, n]) => `${n} ${what}`)
      .join(', '),
  );
}

/** The tables the rollup triggers keep, recomputed from the raw rows after the load. */
const ROLLUPS = [
  'insights_alert_day',
  'insights_ack_sample',
  'insights_ack_day',
  'insights_event_day',
  'insights_escalation_day',
  'insights_ledger_day',
  'insights_ack_channel_day',
];

/** What the migration does on deploy: every rollup recomputed from the raw rows. */
export async function rebuildRollups(t: TestApp): Promise<void> {
  const db = t.get(DataSource);
  const started = performance.now();
  await db.transaction(async (manager) => {
    await manager.query(`SET LOCAL work_mem = '256MB'`);
    await manager.query('SELECT insights_rebuild()');
  });
  log(`rollups rebuilt in ${seconds(started)} s`);
  for (const table of ROLLUPS) await db.query(`VACUUM ANALYZE ${table}`);
  const counts: Array<{ name: string; rows: number }> = await db.query(
    `SELECT relname AS name, n_live_tup::int AS rows FROM pg_stat_user_tables
      WHERE relname = ANY ($1) ORDER BY relname`,
    [ROLLUPS],
  );
  log(counts.map((c) => `${c.rows} ${c.name}`).join(', '));
}
