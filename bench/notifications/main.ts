import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { SessionTokens } from '@platform/identity';
import { DigestProcessor, NotifyService } from '@platform/notifications';
import { JobQueue, QueueName, WorkerRuntimeModule } from '@platform/queue';
import { createTestApp, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { WebSocket } from 'ws';
import { ApiModule } from '../../apps/api/api.module.js';
import { WorkerProcessorsModule } from '../../apps/worker/worker-processors.module.js';
import { SmtpCounter } from './smtp-counter.js';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 5000);
const PUSHES = Number(process.env.BENCH_PUSHES ?? 2000);
const PUSH_RATE = Number(process.env.BENCH_PUSH_RATE ?? 100); // notify() calls per second
const DIGEST_ACCOUNTS = Number(process.env.BENCH_DIGEST_ACCOUNTS ?? 100_000);
const DIGEST_TIMEOUT_S = Number(process.env.BENCH_DIGEST_TIMEOUT_S ?? 600);
const CONNECT_CONCURRENCY = 100;
const IDENTIFIER = JSON.stringify({ channel: 'NotificationsChannel' });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`  ${line}\n`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Verified accounts in one set-based statement; returns their ids. */
async function insertAccounts(t: TestApp, kind: string, count: number): Promise<string[]> {
  const rows: Array<{ id: string }> = await t.get(DataSource).query(
    `INSERT INTO account (login, name, email_verified_at)
       SELECT 'bench-' || $1 || '-' || i || '@bench.example', 'Bench ' || i, $3
         FROM generate_series(1, $2::int) AS i
       RETURNING id`,
    [kind, count, t.clock.now()],
  );
  return rows.map((r) => r.id);
}

interface BenchSocket {
  accountId: string;
  socket: WebSocket;
}

/** Opens a socket, waits for the welcome, subscribes and waits for the confirmation. */
function connect(
  url: string,
  accountId: string,
  onCreated: (seq: number) => void,
): Promise<BenchSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, ['actioncable-v1-json']);
    const timer = setTimeout(() => reject(new Error(`socket ${accountId} timed out`)), 30_000);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as {
        type?: string;
        message?: { event?: string; notification?: { payload?: { seq?: number } } };
      };
      if (frame.type === 'ping') return;
      if (frame.type === 'welcome') {
        socket.send(JSON.stringify({ command: 'subscribe', identifier: IDENTIFIER }));
      } else if (frame.type === 'confirm_subscription') {
        clearTimeout(timer);
        resolve({ accountId, socket });
      } else if (frame.type === 'disconnect' || frame.type === 'reject_subscription') {
        clearTimeout(timer);
        reject(new Error(`socket ${accountId}: ${JSON.stringify(frame)}`));
      } else if (frame.message?.event === 'created') {
        const seq = frame.message.notification?.payload?.seq;
        if (typeof seq === 'number') onCreated(seq);
      }
    });
  });
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
    const onCreated = (seq: number) => {
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

async function digestFlush(): Promise<string> {
  const smtp = await SmtpCounter.start();
  // Daily digests at 07:00 UTC; the clock stands at 06:30 while the rows are written.
  const t = await createTestApp((config) => ApiModule.forRoot(config), {
    imports: [WorkerRuntimeModule, WorkerProcessorsModule],
    config: { smtpUrl: smtp.url },
  });
  try {
    t.clock.set('2026-03-10T06:30:00Z');
    const db = t.get(DataSource);
    const setupStart = performance.now();
    await insertAccounts(t, 'digest', DIGEST_ACCOUNTS);
    await db.query(
      `INSERT INTO notification_schedule (account_id, email_mode, timezone, digest_hour, updated_at)
       SELECT id, 'daily_digest', 'UTC', 7, $1 FROM account WHERE login LIKE 'bench-digest-%'`,
      [t.clock.now()],
    );
    await db.query(
      `INSERT INTO pending_email (account_id, category_key, subject, text, created_at)
       SELECT a.id, 'billing', 'Invoice ' || g || ' issued', 'Invoice ' || g || E' is ready.\\nAmount: 12.00 EUR', $1
         FROM account a CROSS JOIN generate_series(1, 2) AS g
        WHERE a.login LIKE 'bench-digest-%'`,
      [t.clock.now()],
    );
    await db.query('ANALYZE');
    log(
      `${DIGEST_ACCOUNTS} digest accounts with 2 held e-mails each in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`,
    );

    t.clock.set('2026-03-10T07:05:00Z');
    const start = performance.now();
    const enqueued = await t.get(DigestProcessor).sweep();
    const sweepS = (performance.now() - start) / 1000;
    log(`sweep enqueued ${enqueued} flush jobs in ${sweepS.toFixed(1)} s`);
    const progress = setInterval(
      () => log(`${smtp.count} e-mails after ${((performance.now() - start) / 1000).toFixed(0)} s`),
      10_000,
    );
    const finished = await Promise.race([
      smtp.waitFor(DIGEST_ACCOUNTS).then(() => true),
      sleep(DIGEST_TIMEOUT_S * 1000).then(() => false),
    ]);
    clearInterval(progress);
    const elapsed = (performance.now() - start) / 1000;
    const sent = smtp.count;
    // Let the last flushes record what they sent before shutting down.
    const queue = t.get(JobQueue).queue(QueueName.Digests);
    for (let i = 0; i < 600; i += 1) {
      const counts = await queue.getJobCounts('waiting', 'active');
      if (counts.waiting + counts.active === 0) break;
      await sleep(100);
    }
    const [{ unsent }]: Array<{ unsent: string }> = await db.query(
      'SELECT count(*) AS unsent FROM pending_email WHERE sent_at IS NULL',
    );
    log(`unsent held e-mails afterwards: ${unsent}`);
    return (
      `digest flush: ${sent} e-mails in ${elapsed.toFixed(1)} s ` +
      `(${Math.round(sent / elapsed)} /s, target ${DIGEST_ACCOUNTS} in < 60 s; sweep ${sweepS.toFixed(1)} s` +
      `${finished ? '' : `; stopped after ${DIGEST_TIMEOUT_S} s`})`
    );
  } finally {
    await t.close();
    await smtp.close();
  }
}

const only = process.argv[2];
const results: string[] = [];
if (!only || only === 'push') results.push(await pushLatency());
if (!only || only === 'digest') results.push(await digestFlush());
for (const line of results) console.log(line);
