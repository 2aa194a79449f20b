import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { AlertEventKind } from '@platform/alerting';
import { EscalationInstancesRepository, EscalationJobs, STEP_BATCH } from '@platform/escalation';
import { createTestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { ApiModule } from '../../apps/api/api.module.js';
import { WorkerProcesses } from '../notifications/worker-processes.js';
import { seed } from './seed.js';

const ESCALATIONS = Number(process.env.BENCH_ESCALATIONS ?? 10_000);
const WORKERS = Number(process.env.BENCH_ESCALATION_WORKERS ?? 2);
/** Time between enqueueing the step jobs and the moment every step falls due. */
const LEAD_MS = Number(process.env.BENCH_ESCALATION_LEAD_MS ?? 5_000);
const TIMEOUT_MS = 120_000;
const POLL_MS = Number(process.env.BENCH_ESCALATION_POLL_MS ?? 25);
/** Print the plan of one batch of steps (EXPLAIN ANALYZE, rolled back) before the run. */
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`  ${line}\n`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/**
 * The plan of one batch as the engine runs it, in a transaction that is rolled back. Every
 * seeded step pages a member, so the recipients are the members themselves.
 */
async function explainBatch(db: DataSource, at: Date): Promise<void> {
  const targets = await new EscalationInstancesRepository(db).dueTargets(at, ESCALATIONS);
  const recipients = targets.map((t) => ({
    targetKey: t.target_key,
    accountId: t.step.target_member_id,
    contactLabel: null,
    phoneNumber: null,
  }));
  const runner = db.createQueryRunner();
  await runner.startTransaction();
  try {
    // The batch statement is a named one, run through the pool under the DataSource.
    const explain = async ({ text, values }: { text: string; values: unknown[] }) => {
      const plan: Array<{ 'QUERY PLAN': string }> = await runner.query(
        `EXPLAIN (ANALYZE, BUFFERS, WAL) ${text}`,
        values,
      );
      for (const row of plan) log(`    ${row['QUERY PLAN']}`);
      return { rows: [{ locked: 0, ran: 0, page_ids: '', next_run_ats: [] }] };
    };
    const explaining = { driver: { master: { query: explain } } } as unknown as DataSource;
    await new EscalationInstancesRepository(explaining).runSteps(
      at,
      STEP_BATCH,
      targets.map((t) => t.target_key),
      recipients,
      AlertEventKind.EscalationExhausted,
    );
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}

/**
 * Opens ESCALATIONS escalations whose first step falls due at the same instant, with the step
 * jobs enqueued as the engine enqueues them, and worker processes started as production starts
 * them. Lateness is the time from the due instant until the page row is committed, observed by
 * polling the page count every few milliseconds from this process (so it includes the commit
 * and up to one poll interval).
 */
async function main(): Promise<void> {
  const t = await createTestApp((config) => ApiModule.forRoot(config));
  let workers: WorkerProcesses | null = null;
  try {
    workers = await WorkerProcesses.start(WORKERS, t.config);
    const db = t.get(DataSource);
    const setup = performance.now();
    const dueAt = new Date(Date.now() + 60_000);
    await seed(t, ESCALATIONS, dueAt);
    await db.query('ANALYZE');
    log(
      `${ESCALATIONS} escalations seeded in ${((performance.now() - setup) / 1000).toFixed(1)} s`,
    );

    if (EXPLAIN) await explainBatch(db, dueAt);

    // Due LEAD_MS from now: the jobs go in as the engine's delayed jobs.
    const due = Date.now() + LEAD_MS;
    await db.query(`UPDATE escalation_due SET due_at = $1`, [new Date(due)]);
    // The engine's own enqueueing, on the real time.
    t.clock.set(new Date());
    const dueAts = await db.query<Array<{ due_at: Date }>>('SELECT due_at FROM escalation_due');
    await t.get(EscalationJobs).steps(dueAts.map((r) => r.due_at));
    log(`step jobs enqueued; due in ${((due - Date.now()) / 1000).toFixed(1)} s`);

    const lateness: number[] = [];
    let seen = 0;
    while (Date.now() < due + TIMEOUT_MS && seen < ESCALATIONS) {
      const [{ n }] = await db.query<Array<{ n: number }>>(
        'SELECT count(*)::int AS n FROM escalation_page',
      );
      const now = Date.now();
      for (; seen < n; seen++) lateness.push(Math.max(0, now - due));
      await sleep(POLL_MS);
    }
    const allWritten = Date.now();
    // Delivery (the in-app notification itself) follows from the page's job.
    let delivered: number[] = [];
    while (Date.now() < allWritten + TIMEOUT_MS) {
      const rows = await db.query<Array<{ late: number }>>(
        `SELECT extract(epoch FROM sent_at - due_at) * 1000 AS late FROM escalation_page
          WHERE status = 'sent'`,
      );
      if (rows.length >= ESCALATIONS) {
        delivered = rows.map((r) => Number(r.late)).sort((a, b) => a - b);
        break;
      }
      await sleep(100);
    }
    const [{ ran, notifications }] = await db.query<Array<{ ran: number; notifications: number }>>(
      `SELECT (SELECT count(*)::int FROM escalation_due WHERE step_index = 1) AS ran,
              (SELECT count(*)::int FROM notification WHERE category_key = 'alert_escalation')
                AS notifications`,
    );

    lateness.sort((a, b) => a - b);
    const span = (lateness.at(-1) ?? 0) / 1000;
    process.stdout.write(
      [
        `escalation: ${ESCALATIONS} steps due at the same instant, ${WORKERS} worker processes`,
        `  steps run: ${ran}, pages written: ${seen}, in-app notifications delivered: ${notifications}`,
        `  lateness, due time to page written: p50 ${ms(percentile(lateness, 50))}, ` +
          `p99 ${ms(percentile(lateness, 99))}, min ${ms(lateness[0] ?? NaN)}, max ${ms(lateness.at(-1) ?? NaN)} (target: p99 < 250 ms)`,
        `  steps/s: ${span > 0 ? Math.round(seen / span) : 'n/a'} (all ${seen} within ${span.toFixed(3)} s of the due time)`,
        `  lateness, due time to in-app notification delivered: p50 ${ms(percentile(delivered, 50))}, ` +
          `p99 ${ms(percentile(delivered, 99))}`,
        '',
      ].join('\n'),
    );
  } finally {
    await workers?.stop();
    await t.close();
  }
}

await main();
process.exit(0);
