import 'reflect-metadata';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SessionTokens } from '@platform/identity';
import { NotifyService } from '@platform/notifications';
import { JobName, JobQueue, QueueName, REDIS } from '@platform/queue';
import { createTestApp, type TestApp } from '@platform/testing';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { ApiModule } from '../../apps/api/api.module.js';
import { type BenchSocket, connect, type PushedNotification } from './cable-socket.js';
import { CpuMeter } from './cpu-usage.js';
import { SmtpCounter } from './smtp-counter.js';
import { WORKER_ENTRY, WorkerProcesses } from './worker-processes.js';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 5000);
const PUSHES = Number(process.env.BENCH_PUSHES ?? 2000);
const PUSH_RATE = Number(process.env.BENCH_PUSH_RATE ?? 100); // notify() calls per second
const DIGEST_ACCOUNTS = Number(process.env.BENCH_DIGEST_ACCOUNTS ?? 100_000);
const DIGEST_TIMEOUT_S = Number(process.env.BENCH_DIGEST_TIMEOUT_S ?? 600);
const DIGEST_WORKERS = Number(process.env.BENCH_DIGEST_WORKERS ?? 2);
const CONNECT_CONCURRENCY = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`  ${line}\n`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Verified accounts in one set-based statement; returns their ids. */
async function insertAccounts(t: TestApp, kind: string, count: number): Promise<string[]> {
  const rows: Array<{ id: string }> = await t.get(DataSource).query(
    `INSERT INTO account (login, login_key, name, email_verified_at)
       SELECT 'bench-' || $1 || '-' || i || '@bench.example',
              'bench-' || $1 || '-' || i || '@bench.example', 'Bench ' || i, $3
         FROM generate_series(1, $2::int) AS i
       RETURNING id`,
    [kind, count, t.clock.now()],
  );
  return rows.map((r) => r.id);
}

async function pushLatency(): Promise<string> {
  const t = await createTestApp((config) => ApiModule.forRoot(config), { listen: true });
  const sockets: BenchSocket[] = [];
  try {
    const ids = await insertAccounts(t, 'push', SOCKETS);
    const sessions = t.get(SessionTokens);
    const tokens = await Promise.all(ids.map(async (id) => (await sessions.issue(id)).token));
    const started = new Map<number, number>();
    const latencies: number[] = [];
    let done: (() => void) | null = null;
    const onCreated = (notification: PushedNotification) => {
      const seq = notification.payload?.seq;
      if (typeof seq !== 'number') return;
      const at = started.get(seq);
      if (at === undefined) return;
      started.delete(seq);
      latencies.push(performance.now() - at);
      if (latencies.length === PUSHES && done) done();
    };

    const base = t.baseUrl!.replace(/^http/, 'ws');
    const connectStart = performance.now();
    for (let i = 0; i < ids.length; i += CONNECT_CONCURRENCY) {
      const batch = ids
        .slice(i, i + CONNECT_CONCURRENCY)
        .map((id, j) =>
          connect(`${base}/cable?token=${encodeURIComponent(tokens[i + j])}`, id, onCreated),
        );
      sockets.push(...(await Promise.all(batch)));
    }
    log(
      `${sockets.length} sockets connected and subscribed in ${((performance.now() - connectStart) / 1000).toFixed(1)} s`,
    );

    const notify = t.get(NotifyService);
    // Warm-up: categories cache, prepared paths, JIT.
    for (let i = 0; i < 20; i += 1) {
      await notify.notify({
        category: 'feature_request',
        eventType: 'bench_warmup',
        organizationId: null,
        recipients: [ids[i]],
        payload: { warmup: true },
      });
    }
    await sleep(500);

    const all = new Promise<void>((resolve) => (done = resolve));
    const failures: string[] = [];
    const interval = 1000 / PUSH_RATE;
    const t0 = performance.now();
    for (let seq = 0; seq < PUSHES; seq += 1) {
      const wait = t0 + seq * interval - performance.now();
      if (wait > 0) await sleep(wait);
      const recipient = ids[Math.floor(Math.random() * ids.length)];
      started.set(seq, performance.now());
      notify
        .notify({
          category: 'feature_request',
          eventType: 'bench_push',
          organizationId: null,
          recipients: [recipient],
          payload: { seq },
        })
        .catch((error: Error) => failures.push(error.message));
    }
    await Promise.race([all, sleep(30_000)]);
    if (failures.length > 0) log(`${failures.length} notify() calls failed: ${failures[0]}`);
    const missing = PUSHES - latencies.length;
    const sorted = [...latencies].sort((a, b) => a - b);
    const fmt = (v: number) => v.toFixed(1);
    return (
      `push latency over ${sockets.length} sockets: n=${latencies.length} ` +
      `p50=${fmt(percentile(sorted, 50))} ms p99=${fmt(percentile(sorted, 99))} ms ` +
      `max=${fmt(sorted[sorted.length - 1])} ms (target p99 < 50 ms; ${PUSH_RATE}/s` +
      `${missing > 0 ? `; ${missing} pushes not received` : ''})`
    );
  } finally {
    for (const { socket } of sockets) socket.terminate();
    await t.close();
  }
}

/** Polls until no job of the queue waits or runs. */
async function drained(queue: Queue, timeoutS: number): Promise<boolean> {
  for (let i = 0; i < timeoutS * 10; i += 1) {
    const counts = await queue.getJobCounts('waiting', 'active', 'prioritized');
    if (counts.waiting + counts.active + counts.prioritized === 0) return true;
    await sleep(100);
  }
  return false;
}

/**
 * The sweep reads the real clock. The rows are written with a digest hour that is not due, so
 * a scheduled sweep meanwhile finds nothing; right before the measured sweep they are moved to
 * the current UTC hour (not in its last seconds, so the sweep still sees that hour).
 */
async function makeDigestsDue(db: DataSource): Promise<void> {
  const now = new Date();
  if (now.getUTCMinutes() === 59 && now.getUTCSeconds() >= 50) {
    await sleep((61 - now.getUTCSeconds()) * 1000);
  }
  await db.query('UPDATE notification_schedule SET digest_hour = $1', [new Date().getUTCHours()]);
}

/**
 * The flush runs as in production: worker processes started like the worker deployable, with
 * the real clock, sweep and flush jobs through Redis, delivery over SMTP. This process only
 * writes the data, enqueues the sweep job the scheduler would run, and counts at the SMTP
 * server. The time runs from enqueueing the sweep until the server received every digest.
 */
async function digestFlush(): Promise<string> {
  const smtp = await SmtpCounter.start();
  const t = await createTestApp((config) => ApiModule.forRoot(config), {
    config: { smtpUrl: smtp.url },
  });
  let workers: WorkerProcesses | null = null;
  try {
    const db = t.get(DataSource);
    const jobs = t.get(JobQueue);
    const queue = jobs.queue(QueueName.Digests);

    // Workers first: each one's first scheduled sweep runs at once and must find nothing yet.
    const workerStart = performance.now();
    workers = await WorkerProcesses.start(DIGEST_WORKERS, t.config);
    await drained(queue, 30);
    log(
      `${DIGEST_WORKERS} worker process(es) started (node ${relative(process.cwd(), WORKER_ENTRY)}) ` +
        `in ${((performance.now() - workerStart) / 1000).toFixed(1)} s`,
    );

    const setupStart = performance.now();
    await insertAccounts(t, 'digest', DIGEST_ACCOUNTS);
    await db.query(
      `INSERT INTO notification_schedule (account_id, email_mode, timezone, digest_hour, updated_at)
       SELECT id, 'daily_digest', 'UTC', $1, now() FROM account WHERE login LIKE 'bench-digest-%'`,
      [(new Date().getUTCHours() + 12) % 24],
    );
    await db.query(
      `INSERT INTO pending_email (account_id, category_key, subject, text, created_at)
       SELECT a.id, 'billing', 'Invoice ' || g || ' issued', 'Invoice ' || g || E' is ready.\\nAmount: 12.00 EUR', now()
         FROM account a CROSS JOIN generate_series(1, 2) AS g
        WHERE a.login LIKE 'bench-digest-%'`,
    );
    await db.query('ANALYZE');
    await makeDigestsDue(db);
    log(
      `${DIGEST_ACCOUNTS} daily-digest accounts, due now, with 2 held e-mails each in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`,
    );

    const cpu = await CpuMeter.start(workers.pids, db, t.get<Redis>(REDIS));
    const start = performance.now();
    const sweepId = await jobs.enqueue(JobName.DigestSweep, {});
    const progress = setInterval(
      () => log(`${smtp.count} e-mails after ${((performance.now() - start) / 1000).toFixed(0)} s`),
      10_000,
    );
    let sweepS = NaN;
    let enqueued = NaN;
    const sweepWatch = (async () => {
      for (;;) {
        const job = await queue.getJob(sweepId);
        if (job?.finishedOn) {
          sweepS = (job.finishedOn - job.timestamp) / 1000;
          enqueued = Number(job.returnvalue);
          log(`sweep enqueued ${enqueued} flush jobs in ${sweepS.toFixed(1)} s`);
          return;
        }
        if (performance.now() - start > DIGEST_TIMEOUT_S * 1000) return;
        await sleep(50);
      }
    })();
    const finished = await Promise.race([
      smtp.waitFor(DIGEST_ACCOUNTS).then(() => true),
      sleep(DIGEST_TIMEOUT_S * 1000).then(() => false),
    ]);
    const elapsed = (performance.now() - start) / 1000;
    clearInterval(progress);
    const cpuSeconds = await cpu.stop();
    const sent = smtp.count;
    await sweepWatch;

    // Let the last flushes record what they sent before checking and shutting down.
    await drained(queue, 60);
    const [{ unsent, marked }]: Array<{ unsent: string; marked: string }> = await db.query(
      `SELECT (SELECT count(*) FROM pending_email WHERE sent_at IS NULL) AS unsent,
              (SELECT count(*) FROM notification_schedule WHERE last_digest_at IS NOT NULL) AS marked`,
    );
    const { failed } = await queue.getJobCounts('failed');
    log(CpuMeter.format(cpuSeconds));
    log(
      `afterwards: ${unsent} held e-mails unsent, ${marked} accounts with a recorded digest, ` +
        `${failed} failed jobs, ${smtp.recipients} distinct recipients at the SMTP server`,
    );
    return (
      `digest flush: ${sent} e-mails in ${elapsed.toFixed(1)} s ` +
      `(${Math.round(sent / elapsed)} /s, target ${DIGEST_ACCOUNTS} in < 60 s; sweep ${sweepS.toFixed(1)} s; ` +
      `${DIGEST_WORKERS} worker process(es)` +
      `${finished ? '' : `; stopped after ${DIGEST_TIMEOUT_S} s`})`
    );
  } finally {
    await workers?.stop();
    await t.close();
    await smtp.close();
  }
}

const only = process.argv[2];
const results: string[] = [];
if (!only || only === 'push') results.push(await pushLatency());
if (!only || only === 'digest') results.push(await digestFlush());
for (const line of results) console.log(line);
// Everything is closed; do not wait for stray handles of the libraries to let go.
process.exit(0);
