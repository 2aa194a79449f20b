import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { PlatformAdminStartup, SessionTokens } from '@platform/identity';
import { JobQueue, QueueName } from '@platform/queue';
import { createTestApp, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { ApiModule } from '../../apps/api/api.module.js';
import {
  type BenchSocket,
  connect,
  type PushedNotification,
} from '../notifications/cable-socket.js';
import { SmtpCounter } from '../notifications/smtp-counter.js';
import { WorkerProcesses } from '../notifications/worker-processes.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 100_000);
const PER_ORGANIZATION = Number(process.env.BENCH_ACCOUNTS_PER_ORGANIZATION ?? 100);
const SAMPLE_SOCKETS = Number(process.env.BENCH_SAMPLE_SOCKETS ?? 500);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 300);
const ADMIN = { login: 'root@bench.example', password: 'platform admin password 1' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`  ${line}\n`);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

/**
 * ACCOUNTS verified accounts in organizations of PER_ORGANIZATION members (the first an admin),
 * each organization with a project that has dns granted (Available under the unbounded Limit),
 * in a few set-based statements. Answers the account ids.
 */
async function seed(t: TestApp): Promise<string[]> {
  const db = t.get(DataSource);
  const organizations = Math.ceil(ACCOUNTS / PER_ORGANIZATION);
  await db.query(
    `INSERT INTO organization (name) SELECT 'Bench org ' || i FROM generate_series(1, $1::int) AS i`,
    [organizations],
  );
  const accounts: Array<{ id: string }> = await db.query(
    `INSERT INTO account (login, login_key, name, email_verified_at)
       SELECT 'bench-' || i || '@bench.example', 'bench-' || i || '@bench.example', 'Bench ' || i, now()
         FROM generate_series(1, $1::int) AS i
       RETURNING id`,
    [ACCOUNTS],
  );
  await db.query(
    `WITH orgs AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM organization
                    WHERE name LIKE 'Bench org %'),
          accts AS (SELECT id, row_number() OVER (ORDER BY login) - 1 AS n FROM account
                     WHERE login LIKE 'bench-%')
     INSERT INTO membership (organization_id, account_id, role)
     SELECT o.id, a.id, CASE WHEN a.n % $1 = 0 THEN 'admin' ELSE 'developer' END
       FROM accts a JOIN orgs o ON o.n = a.n / $1`,
    [PER_ORGANIZATION],
  );
  await db.query(
    `INSERT INTO project (organization_id, name)
       SELECT id, 'web' FROM organization WHERE name LIKE 'Bench org %'`,
  );
  await db.query(
    `INSERT INTO feature_grant (project_id, feature_key, allowed_kinds, created_at, updated_at)
       SELECT p.id, 'dns', NULL, now(), now() FROM project p
         JOIN organization o ON o.id = p.organization_id WHERE o.name LIKE 'Bench org %'`,
  );
  await db.query('ANALYZE');
  return accounts.map((a) => a.id);
}

/** Sockets of the first SAMPLE_SOCKETS accounts; `onOpened` runs per incident push. */
async function connectSample(
  t: TestApp,
  ids: string[],
  onOpened: (notification: PushedNotification) => void,
): Promise<BenchSocket[]> {
  const sessions = t.get(SessionTokens);
  const base = t.baseUrl!.replace(/^http/, 'ws');
  const sockets: BenchSocket[] = [];
  for (let i = 0; i < SAMPLE_SOCKETS; i += 100) {
    const batch = ids.slice(i, Math.min(i + 100, SAMPLE_SOCKETS));
    sockets.push(
      ...(await Promise.all(
        batch.map(async (id) => {
          const { token } = await sessions.issue(id);
          return connect(`${base}/cable?token=${encodeURIComponent(token)}`, id, onOpened);
        }),
      )),
    );
  }
  return sockets;
}

async function incidentRows(db: DataSource): Promise<number> {
  const [{ n }]: Array<{ n: number }> = await db.query(
    `SELECT count(*)::int AS n FROM notification WHERE category_key = 'platform_incident'`,
  );
  return n;
}

/**
 * One incident affecting dns, opened through the API (this process, listening) with WORKERS
 * worker processes started as the worker deployable; e-mail goes to a counting SMTP server.
 * Measures from the POST to every in-app row written, and to every sample socket pushed.
 */
async function main(): Promise<string> {
  const smtp = await SmtpCounter.start();
  const t = await createTestApp((config) => ApiModule.forRoot(config), {
    listen: true,
    config: { smtpUrl: smtp.url, platformAdmin: ADMIN },
  });
  let workers: WorkerProcesses | null = null;
  const sockets: BenchSocket[] = [];
  try {
    if (!(await t.get(PlatformAdminStartup).ensured)) throw new Error('no platform admin');
    const db = t.get(DataSource);
    const setup = performance.now();
    const ids = await seed(t);
    log(
      `${ids.length} accounts in ${Math.ceil(ACCOUNTS / PER_ORGANIZATION)} organizations, dns Available everywhere, in ${seconds(setup)} s`,
    );
    const workerStart = performance.now();
    workers = await WorkerProcesses.start(WORKERS, t.config);
    log(`${WORKERS} worker process(es) started in ${seconds(workerStart)} s`);

    let pushed = 0;
    let allPushed = NaN;
    let start = 0;
    sockets.push(
      ...(await connectSample(t, ids, (notification) => {
        if (notification.event_type !== 'opened') return;
        pushed += 1;
        if (pushed === SAMPLE_SOCKETS) allPushed = (performance.now() - start) / 1000;
      })),
    );
    log(`${sockets.length} sample sockets subscribed`);

    const login = await fetch(`${t.baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const jwt = login.headers.get('authorization')!;
    start = performance.now();
    const res = await fetch(`${t.baseUrl}/admin/platform_incidents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: jwt },
      body: JSON.stringify({
        title: 'DNS resolution degraded',
        body: 'Some zones answer slowly; we are on it.',
        severity: 'critical',
        affected_features: ['dns'],
      }),
    });
    const answered = (performance.now() - start) / 1000;
    if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);

    let rows = 0;
    let allWritten = NaN;
    for (let last = 0; performance.now() - start < TIMEOUT_S * 1000;) {
      rows = await incidentRows(db);
      if (rows >= ACCOUNTS && pushed >= SAMPLE_SOCKETS) break;
      if (rows >= ACCOUNTS && Number.isNaN(allWritten))
        allWritten = (performance.now() - start) / 1000;
      if (performance.now() - last > 5000) {
        log(`${rows} rows, ${pushed} pushes, ${smtp.count} e-mails after ${seconds(start)} s`);
        last = performance.now();
      }
      await sleep(100);
    }
    if (rows >= ACCOUNTS && Number.isNaN(allWritten))
      allWritten = (performance.now() - start) / 1000;
    const { failed } = await t.get(JobQueue).queue(QueueName.FanOuts).getJobCounts('failed');
    log(`${smtp.count} e-mails at the SMTP server so far, ${failed} failed fan-out page jobs`);
    return (
      `platform incident fan-out: POST answered in ${(answered * 1000).toFixed(0)} ms; ` +
      `${rows}/${ACCOUNTS} in-app rows written in ${allWritten.toFixed(1)} s ` +
      `(${Math.round(rows / allWritten)} /s); ${pushed}/${SAMPLE_SOCKETS} sample sockets pushed in ` +
      `${allPushed.toFixed(1)} s (target < 30 s; ${WORKERS} worker process(es))`
    );
  } finally {
    for (const { socket } of sockets) socket.terminate();
    await workers?.stop();
    await t.close();
    await smtp.close();
  }
}

console.log(await main());
// Everything is closed; do not wait for stray handles of the libraries to let go.
process.exit(0);
