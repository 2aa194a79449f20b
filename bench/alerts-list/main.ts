import 'reflect-metadata';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { AlertSearchTexts, AlertsRepository, parseAlertListQuery } from '@platform/alerting';
import { MetricsService } from '@platform/core';
import { SessionTokens } from '@platform/identity';
import { createTestApp, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { ApiModule } from '../../apps/api/api.module.js';

const ALERTS = Number(process.env.BENCH_ALERTS ?? 1_000_000);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
/** Also print the plans of the list's statements for every term (EXPLAIN ANALYZE). */
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
/** New alerts per project and round in the arrivals pass. */
const NEW_PER_ROUND = Number(process.env.BENCH_NEW_PER_ROUND ?? 20);
const TARGET_P99_MS = 50;

/**
 * Search terms: one and two characters, three-character words, longer phrases; common and
 * rare ones; a literal `%`. The selectivity is measured and printed (matches per project).
 */
const QUERIES = [
  'a',
  'x',
  'z',
  'db',
  'zq',
  'cpu',
  'web',
  '9f3',
  'disk almost',
  'checkouthighcpu',
  'web-1234',
  'above 95%',
  'no such alert',
];

const log = (line: string) => process.stderr.write(`  ${line}\n`);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** An admin account of one organization with `PROJECTS` projects holding the alerts grant. */
async function tenant(t: TestApp): Promise<{ token: string; projects: string[] }> {
  const db = t.get(DataSource);
  const now = t.clock.now();
  const [{ id: accountId }]: Array<{ id: string }> = await db.query(
    `INSERT INTO account (login, login_key, name, email_verified_at)
     VALUES ('bench@bench.example', 'bench@bench.example', 'Bench', $1)
     RETURNING id`,
    [now],
  );
  const [{ id: organizationId }]: Array<{ id: string }> = await db.query(
    `INSERT INTO organization (name) VALUES ('Bench') RETURNING id`,
  );
  await db.query(
    `INSERT INTO membership (organization_id, account_id, role) VALUES ($1, $2, 'admin')`,
    [organizationId, accountId],
  );
  const projects: Array<{ id: string }> = await db.query(
    `INSERT INTO project (organization_id, name)
     SELECT $1, 'bench-' || i FROM generate_series(1, $2::int) AS i RETURNING id`,
    [organizationId, PROJECTS],
  );
  await db.query(
    `INSERT INTO feature_grant (project_id, feature_key, allowed_kinds, created_at, updated_at)
     SELECT id, 'alerts', NULL, $2, $2 FROM unnest($1::uuid[]) AS id`,
    [projects.map((p) => p.id), now],
  );
  const { token } = await t.get(SessionTokens).issue(accountId);
  return { token, projects: projects.map((p) => p.id) };
}

/**
 * `ALERTS` alerts spread round-robin over the projects, in one set-based statement: 130
 * alertnames (10 services x 13 conditions), 30,000 hosts over 6 roles and 5 regions, Alertmanager-
 * style 16-hex fingerprints, receipts spread over 30 days with ties. The insert trigger writes
 * the search rows in the same statement. The secondary indexes of the alert and search tables
 * are dropped for the load and rebuilt from their own definitions, as a bulk load would.
 */
async function seed(t: TestApp, projects: string[]): Promise<void> {
  const db = t.get(DataSource);
  const indexes: Array<{ name: string; definition: string }> = await db.query(
    `SELECT i.indexname AS name, i.indexdef AS definition
       FROM pg_indexes i
      WHERE i.tablename IN ('alert', 'alert_search') AND i.schemaname = current_schema()
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
  for (const index of indexes) await db.query(`DROP INDEX ${index.name}`);
  const start = performance.now();
  await db.query(
    `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations, starts_at,
                        ends_at, generator_url, last_received_at, created_at, updated_at)
     SELECT ($1::uuid[])[1 + i % cardinality($1::uuid[])],
            left(md5(i::text || '-fp'), 16),
            CASE WHEN i % 3 = 0 THEN 'firing' ELSE 'resolved' END,
            (ARRAY['critical', 'high', 'warning', 'info'])[1 + i % 4],
            jsonb_build_object('alertname', v.svc || v.cond,
                               'severity', (ARRAY['critical', 'high', 'warning', 'info'])[1 + i % 4],
                               'instance', v.host || '-' || (i % 5000) || ':9100',
                               'job', lower(v.svc), 'region', v.region),
            jsonb_build_object('summary', v.descr || ' on ' || v.host || '-' || (i % 5000) || ' (' || v.region || ')',
                               'description', 'Runbook: https://runbooks.example.com/' || lower(v.cond)),
            v.ts - interval '5 minutes',
            CASE WHEN i % 3 = 0 THEN NULL ELSE v.ts END,
            'http://prometheus:9090/graph?g0.expr=up', v.ts, v.ts - interval '5 minutes', v.ts
       FROM generate_series(1, $2::int) AS i
      CROSS JOIN LATERAL (SELECT
             (ARRAY['Payments', 'Checkout', 'Search', 'Auth', 'Billing', 'Ingest', 'Gateway',
                    'Storage', 'Mailer', 'Scheduler'])[1 + (i / 7) % 10] AS svc,
             (ARRAY['HighCpuUsage', 'HighMemoryUsage', 'DiskSpaceLow', 'PodCrashLooping',
                    'PodNotReady', 'NodeDown', 'TargetDown', 'HttpErrorRate', 'LatencyHigh',
                    'CertificateExpiring', 'BackupFailed', 'ReplicationLag',
                    'QueueBacklog'])[1 + (i / 3) % 13] AS cond,
             (ARRAY['CPU usage above 90%', 'Memory usage above 95%', 'Disk almost full',
                    'Container restarting', 'Pod not ready', 'Node unreachable',
                    'Scrape target down', '5xx rate above 5%', 'p99 latency above 2s',
                    'Certificate expires in 7 days', 'Nightly backup failed',
                    'Replica lagging behind primary', 'Queue backlog growing'])[1 + (i / 3) % 13] AS descr,
             (ARRAY['web', 'db', 'cache', 'worker', 'edge', 'api'])[1 + (i / 11) % 6] AS host,
             (ARRAY['eu-central-1', 'eu-west-1', 'us-east-1', 'us-west-2', 'ap-south-1'])[1 + (i / 13) % 5] AS region,
             date_trunc('second', $3::timestamptz - (i % 2592000) * interval '1 second'
                                  - (i % 17) * interval '1 minute') AS ts) v`,
    [projects, ALERTS, t.clock.now()],
  );
  log(`${ALERTS} alerts inserted in ${seconds(start)} s`);
  const built = performance.now();
  await db.query(`SET maintenance_work_mem = '256MB'`);
  for (const index of indexes) {
    const started = performance.now();
    await db.query(index.definition);
    log(`  ${index.name} in ${seconds(started)} s`);
  }
  log(`${indexes.length} indexes rebuilt in ${seconds(built)} s`);
  const vacuumed = performance.now();
  await db.query('VACUUM ANALYZE alert');
  await db.query('VACUUM ANALYZE alert_search');
  log(`VACUUM ANALYZE in ${seconds(vacuumed)} s`);
}

/**
 * The statements the list runs for `q` (its transaction's and the one keeping the total),
 * captured from the repository's connections, with their plans; first without a kept total,
 * then with it.
 */
async function explain(t: TestApp, projectId: string, q: string): Promise<void> {
  const db = t.get(DataSource);
  const statements: Array<[string, unknown[]]> = [];
  await db.query('DELETE FROM alert_search_total WHERE project_id = $1', [projectId]);
  // Every statement, in a transaction or not, goes through a query runner.
  const createQueryRunner = db.createQueryRunner.bind(db);
  db.createQueryRunner = ((...args: Parameters<typeof createQueryRunner>) => {
    const runner = createQueryRunner(...args);
    const query = runner.query.bind(runner);
    runner.query = (async (sql: string, params?: unknown[]) => {
      if (!/^\s*(START|SET|COMMIT|ROLLBACK)\b/i.test(sql)) statements.push([sql, params ?? []]);
      return query(sql, params);
    }) as typeof runner.query;
    return runner;
  }) as typeof db.createQueryRunner;
  try {
    await t.get(AlertsRepository).list(projectId, parseAlertListQuery({ q }));
    await t.get(AlertsRepository).list(projectId, parseAlertListQuery({ q }));
  } finally {
    db.createQueryRunner = createQueryRunner;
  }
  log(`plans for q=${JSON.stringify(q)} (counted, then kept):`);
  for (const [sql, params] of statements) {
    if (/^\s*WITH useless/.test(sql)) continue;
    // As in the list's transaction (see the repository).
    const [, plan] = (await db.transaction(async (manager) => [
      await manager.query(
        `SELECT set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`,
      ),
      await manager.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params),
    ])) as [unknown, Array<{ 'QUERY PLAN': string }>];
    for (const row of plan) log(`    ${row['QUERY PLAN']}`);
    log('    --');
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function main(): Promise<string[]> {
  const t = await createTestApp((config) => ApiModule.forRoot(config), { listen: true });
  try {
    const { token, projects } = await tenant(t);
    await seed(t, projects);
    if (EXPLAIN) for (const q of QUERIES) await explain(t, projects[0], q);
    const headers = { Authorization: `Bearer ${token}` };
    const search = async (projectId: string, q: string) => {
      const url = `${t.baseUrl}/projects/${projectId}/alerts?q=${encodeURIComponent(q)}&limit=25`;
      const started = performance.now();
      const res = await fetch(url, { headers });
      const body = (await res.json()) as { metadata: { total: number; count: number } };
      const elapsed = performance.now() - started;
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
      return { elapsed, total: body.metadata.total };
    };

    const sample = new Map<string, string>();
    for (const projectId of projects) {
      const [{ id }]: Array<{ id: string }> = await t
        .get(DataSource)
        .query('SELECT id FROM alert WHERE project_id = $1 LIMIT 1', [projectId]);
      sample.set(projectId, id);
    }
    const show = async (projectId: string, id: string) => {
      const started = performance.now();
      const res = await fetch(`${t.baseUrl}/projects/${projectId}/alerts/${id}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`show: ${res.status}`);
      return performance.now() - started;
    };

    // Warm-up: every term once per project (plans, buffers, JIT of the server); the first
    // searches have the projects' search texts read in the background.
    const warming = performance.now();
    const totals = new Map<string, number[]>();
    // The very first searches, counted in SQL while the texts are read.
    const cold: number[] = [];
    for (const q of QUERIES) {
      const perProject: number[] = [];
      for (const projectId of projects) {
        const { elapsed, total } = await search(projectId, q);
        if (q === QUERIES[0]) cold.push(elapsed);
        perProject.push(total);
      }
      totals.set(q, perProject);
    }
    await t.get(AlertSearchTexts).settled();
    const gauge = async (name: string) =>
      (await t.get(MetricsService).registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;
    const held =
      `search texts held in the API: ${await gauge('alert_search_memory_projects')} projects, ` +
      `${((await gauge('alert_search_memory_bytes')) / 1024 / 1024).toFixed(1)} MiB ` +
      `(warm-up and reading them: ${seconds(warming)} s); the first search of each project, ` +
      `q=${JSON.stringify(QUERIES[0])}, counted in SQL while they were read: ` +
      cold.map((ms) => `${ms.toFixed(0)} ms`).join(', ');

    const db = t.get(DataSource);
    const fmt = (v: number) => v.toFixed(1);
    /**
     * `ROUNDS` rounds over the projects, every term once per round; `prepare` runs untimed
     * before each request, `beforeRound` before each round.
     */
    const measure = async (
      title: string,
      prepare?: (projectId: string) => Promise<unknown>,
      beforeRound?: (projectId: string) => Promise<unknown>,
    ): Promise<string[]> => {
      const loadBefore = load();
      const byQuery = new Map<string, number[]>(QUERIES.map((q) => [q, []]));
      const all: number[] = [];
      const baseline: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const projectId = projects[round % projects.length];
        await beforeRound?.(projectId);
        for (const q of QUERIES) {
          await prepare?.(projectId);
          const { elapsed } = await search(projectId, q);
          byQuery.get(q)!.push(elapsed);
          all.push(elapsed);
        }
        // One alert by id: what authentication, guards and the envelope cost by themselves.
        baseline.push(await show(projectId, sample.get(projectId)!));
      }
      const lines = QUERIES.map((q) => {
        const sorted = [...byQuery.get(q)!].sort((a, b) => a - b);
        const matches = Math.round(totals.get(q)!.reduce((a, b) => a + b, 0) / projects.length);
        return (
          `  q=${JSON.stringify(q).padEnd(18)} matches/project≈${String(matches).padStart(7)}  ` +
          `p50=${fmt(percentile(sorted, 50))} ms p99=${fmt(percentile(sorted, 99))} ms ` +
          `max=${fmt(sorted[sorted.length - 1])} ms`
        );
      });
      const sorted = [...all].sort((a, b) => a - b);
      const p99 = percentile(sorted, 99);
      const bare = [...baseline].sort((a, b) => a - b);
      return [
        `${title}: ${all.length} requests one at a time (load average before ${loadBefore}, after ${load()}):`,
        ...lines,
        `  one alert by id (baseline): p50=${fmt(percentile(bare, 50))} ms p99=${fmt(percentile(bare, 99))} ms`,
        `  all: p50=${fmt(percentile(sorted, 50))} ms p99=${fmt(p99)} ms ` +
          `(target p99 < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? 'met' : 'not met'})`,
      ];
    };

    const header =
      `alerts list q search over ${ALERTS} alerts in ${projects.length} projects ` +
      `(${Math.round(ALERTS / projects.length)} per project), first page of 25 with total`;
    const kept = await measure('totals kept since the warm-up');
    // Alertmanager-like arrivals: a few new alerts (copies of existing ones under new
    // fingerprints) before every round, so each search adds the matches among them.
    let added = 0;
    const arrivals = await measure(
      `${NEW_PER_ROUND} new alerts in the project before each round`,
      undefined,
      async (projectId) => {
        added += NEW_PER_ROUND;
        return db.query(
          `INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations,
                              starts_at, ends_at, generator_url, last_received_at, created_at,
                              updated_at)
           SELECT project_id, 'new-' || $3::int || '-' || fingerprint, status, severity, labels,
                  annotations, starts_at, ends_at, generator_url, $2, $2, $2
             FROM alert TABLESAMPLE SYSTEM (1)
            WHERE project_id = $1 LIMIT $4`,
          [projectId, t.clock.now(), added, NEW_PER_ROUND],
        );
      },
    );
    const first = await measure('every search the first of its term (no total kept)', (projectId) =>
      db.query('DELETE FROM alert_search_total WHERE project_id = $1', [projectId]),
    );
    // A changed summary makes the held texts unusable until they are read again (at most once
    // per twenty read durations): these searches count in SQL, as before the texts were held.
    let renamed = 0;
    const rewritten = await measure(
      'every search the first of its term, right after a summary changed in the project',
      async (projectId) => {
        renamed += 1;
        await db.query(
          `UPDATE alert SET annotations = annotations || jsonb_build_object('summary', $2::text)
            WHERE id = (SELECT id FROM alert WHERE project_id = $1 LIMIT 1)`,
          [projectId, `Renamed ${renamed}`],
        );
        return db.query('DELETE FROM alert_search_total WHERE project_id = $1', [projectId]);
      },
    );
    return [header, held, ...kept, ...arrivals, ...first, ...rewritten];
  } finally {
    await t.close();
  }
}

for (const line of await main()) console.log(line);
