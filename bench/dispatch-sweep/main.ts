import 'reflect-metadata';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { JobQueue, QueueName } from '@platform/queue';
import { createTestApp } from '@platform/testing';
import { DataSource, type QueryRunner } from 'typeorm';
import { ApiModule } from '../../apps/api/api.module.js';
import { WorkerProcessorsModule } from '../../apps/worker/worker-processors.module.js';
import { AlertDispatchSweepRepository } from '../../libs/alerting/src/dispatch/alert-dispatch-sweep.repository.js';
import {
  AlertDispatchSweeper,
  SWEEP_GRACE_MS,
  SWEEP_RETRY_MS,
} from '../../libs/alerting/src/dispatch/alert-dispatch-sweeper.js';

/** Alerts per scenario; every fourth is also resolved, so 1.25 transition events each. */
const ALERTS = Number(process.env.BENCH_ALERTS ?? 80_000);
const PROJECTS = 10;
/** Events arrive at this rate (per second of event time). */
const RATE = 1_000;
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';

const log = (line: string) => process.stderr.write(`  ${line}\n`);
const ms = (since: number) => performance.now() - since;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function projects(db: DataSource, now: Date): Promise<string[]> {
  const [{ id: organizationId }]: Array<{ id: string }> = await db.query(
    `INSERT INTO organization (name) VALUES ('Dispatch sweep bench') RETURNING id`,
  );
  const rows: Array<{ id: string }> = await db.query(
    `INSERT INTO project (organization_id, name, created_at, updated_at)
     SELECT $1, 'project ' || i, $2, $2 FROM generate_series(1, $3::int) AS i RETURNING id`,
    [organizationId, now, PROJECTS],
  );
  return rows.map((r) => r.id);
}

/**
 * `ALERTS` alerts whose fired events arrive at RATE per second from `start`, each followed by
 * a `notified` event (what the index lets the sweep skip) and, for every fourth, a `resolved`
 * event 2 s later. `dispatched`: every firing and resolution carries its claim, as when Redis
 * never failed; otherwise none does and none resolved (all owed, as after an outage).
 */
async function seed(
  db: DataSource,
  projectIds: string[],
  tag: string,
  start: Date,
  dispatched: boolean,
): Promise<number> {
  const runner = db.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    // A bulk load: no search-row triggers, no key checks.
    await runner.query('SET LOCAL session_replication_role = replica');
    const at = (offset: string) =>
      `$2::timestamptz + (i * 1000 / ${RATE} ${offset}) * interval '1 ms'`;
    await runner.query(
      `INSERT INTO alert (project_id, fingerprint, status, severity, labels, starts_at, ends_at,
                          last_received_at, created_at, updated_at)
       SELECT ($1::uuid[])[1 + i % ${PROJECTS}], '${tag}-' || i,
              CASE WHEN $3 AND i % 4 = 0 THEN 'resolved' ELSE 'firing' END, 'critical',
              jsonb_build_object('alertname', 'Bench' || i % 50, 'severity', 'critical'),
              ${at('')}, CASE WHEN $3 AND i % 4 = 0 THEN ${at('+ 2000')} END,
              ${at('')}, ${at('')}, ${at('')}
         FROM generate_series(1, $4::int) AS i`,
      [projectIds, start, dispatched, ALERTS],
    );
    await runner.query(
      `INSERT INTO alert_event (alert_id, project_id, kind, details, created_at)
       SELECT a.id, a.project_id, k.kind, '{}', a.starts_at + k.after * interval '1 ms'
         FROM alert a
        CROSS JOIN (VALUES ('fired', 0), ('notified', 5), ('resolved', 2000)) AS k (kind, after)
        WHERE a.fingerprint LIKE '${tag}-%'
          AND (k.kind <> 'resolved' OR a.status = 'resolved')
          AND (k.kind <> 'notified' OR $1)`,
      [dispatched],
    );
    if (dispatched) await claimAll(runner, tag);
    await runner.commitTransaction();
  } finally {
    await runner.release();
  }
  await db.query('ANALYZE alert; ANALYZE alert_event; ANALYZE alert_dispatch');
  const [{ n }]: Array<{ n: number }> = await db.query(
    `SELECT count(*)::int AS n FROM alert_event e JOIN alert a ON a.id = e.alert_id
      WHERE a.fingerprint LIKE '${tag}-%' AND e.kind IN ('fired', 'refired', 'resolved')`,
  );
  return n;
}

/** Every firing of the tag's alerts claimed (and, resolved, its resolution too). */
async function claimAll(runner: QueryRunner | DataSource, tag: string): Promise<void> {
  await runner.query(
    `INSERT INTO alert_dispatch (alert_id, fired_event_id, outcome, created_at, resolved_at)
     SELECT a.id, e.id, 'notified', e.created_at,
            CASE WHEN a.status = 'resolved' THEN a.ends_at END
       FROM alert a JOIN alert_event e ON e.alert_id = a.id AND e.kind = 'fired'
      WHERE a.fingerprint LIKE '${tag}-%'
     ON CONFLICT DO NOTHING`,
  );
}

async function setMark(db: DataSource, at: Date | null): Promise<void> {
  await db.query('UPDATE alert_dispatch_sweep SET swept_at = $1, swept_event_id = $2', [
    at,
    at ? '00000000-0000-0000-0000-000000000000' : null,
  ]);
}

/** EXPLAIN (ANALYZE, BUFFERS) of one scan page from `after`, rolled back. */
async function explainScan(db: DataSource, after: Date, upTo: Date): Promise<string[]> {
  const runner = db.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  try {
    const lines: string[] = [];
    const manager = {
      query: async (sql: string, params: unknown[] = []) => {
        if (sql.startsWith('SELECT set_config')) return runner.query(sql, params);
        const plan: Array<{ 'QUERY PLAN': string }> = await runner.query(
          `EXPLAIN (ANALYZE, BUFFERS) ${sql}`,
          params,
        );
        lines.push(...plan.map((row) => row['QUERY PLAN']));
        return [{ scanned: 0, recorded: 0, event_at: null, event_id: null }];
      },
    };
    const explaining = {
      transaction: (work: (m: typeof manager) => Promise<unknown>) => work(manager),
    } as unknown as DataSource;
    await new AlertDispatchSweepRepository(explaining).scan(
      { at: after, eventId: '00000000-0000-0000-0000-000000000000' },
      upTo,
      5_000,
      upTo,
    );
    return lines;
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}

/**
 * Times the dispatch sweep over a timeline at RATE events per second: every event claimed
 * (Redis never failed: the sweep reads and finds nothing owed), the idle sweep after it, and
 * an outage (nothing claimed: every firing recorded and enqueued), then the sweep that finds
 * them claimed. BENCH_EXPLAIN=1 prints the plan of one page.
 */
async function main(): Promise<void> {
  const t = await createTestApp((config) => ApiModule.forRoot(config), {
    imports: [WorkerProcessorsModule],
  });
  try {
    const db = t.get(DataSource);
    const sweeper = t.get(AlertDispatchSweeper);
    const queue = t.get(JobQueue).queue(QueueName.Escalations);
    log(`load average ${load()}`);
    const start = new Date(t.clock.now().getTime() - 3_600_000);
    const ids = await projects(db, start);
    const span = (ALERTS * 1000) / RATE + 2_000;

    let since = performance.now();
    const steadyEvents = await seed(db, ids, 'steady', start, true);
    log(
      `seeded ${steadyEvents} dispatched transition events in ${(ms(since) / 1000).toFixed(1)} s`,
    );
    t.clock.set(new Date(start.getTime() + span + SWEEP_GRACE_MS));
    await setMark(db, new Date(start.getTime() - 1));
    if (EXPLAIN) {
      log('plan of one 5,000-event page:');
      for (const line of await explainScan(db, start, t.clock.now())) log(`    ${line}`);
    }

    since = performance.now();
    await sweeper.sweep();
    const steady = ms(since);
    since = performance.now();
    await sweeper.sweep();
    const idle = ms(since);
    log(
      `steady: swept ${steadyEvents} events in ${steady.toFixed(0)} ms ` +
        `(${((steady / steadyEvents) * 1000).toFixed(1)} µs each); idle sweep ${idle.toFixed(1)} ms`,
    );

    const outageStart = new Date(start.getTime() + span + 1_000);
    since = performance.now();
    const outageEvents = await seed(db, ids, 'outage', outageStart, false);
    log(`seeded ${outageEvents} undispatched firings in ${(ms(since) / 1000).toFixed(1)} s`);
    t.clock.set(new Date(outageStart.getTime() + span + SWEEP_GRACE_MS));
    since = performance.now();
    await sweeper.sweep();
    const recovery = ms(since);
    const [{ owed }]: Array<{ owed: number }> = await db.query(
      'SELECT count(*)::int AS owed FROM alert_dispatch_owed',
    );
    const jobs = (await queue.getJobs(['wait'])).length;
    log(
      `outage: swept ${outageEvents} events, recorded ${owed} owed and enqueued them as ${jobs} jobs ` +
        `in ${recovery.toFixed(0)} ms`,
    );
    await claimAll(db, 'outage');
    t.clock.advance({ ms: SWEEP_RETRY_MS });
    since = performance.now();
    await sweeper.sweep();
    const drained = ms(since);
    const [{ left }]: Array<{ left: number }> = await db.query(
      'SELECT count(*)::int AS left FROM alert_dispatch_owed',
    );
    log(
      `after the claims: the next sweep checked and dropped ${owed - left} in ${drained.toFixed(0)} ms`,
    );
    log(`load average ${load()}`);
  } finally {
    await t.close();
  }
}

await main();
process.exit(0);
