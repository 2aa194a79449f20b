import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  createTestDatabase,
  deleteRedisPrefix,
  redisUrl,
  uniqueRedisPrefix,
} from '@platform/testing';
import pg from 'pg';
import { SmtpCounter } from '../notifications/smtp-counter.js';
import { AlertLoad } from './alert-load.js';
import { CableClients } from './cable-clients.js';
import { CustomerSetup } from './customer.js';
import {
  bucketQuantile,
  notificationsByAccount,
  pageLateness,
  readTally,
  type Samples,
  scrape,
  sum,
  type Tally,
  tallyDelta,
} from './observer.js';
import { COLUMN_NOTES, type MinuteRow, tableHeader, tableRow } from './report.js';
import { API_ENTRY, freePort, RssFloor, ServiceProcess, WORKER_ENTRY } from './service-process.js';
import { type SoakSettings, soakSettings } from './settings.js';
import { type Outcome, summarize } from './summary.js';

const log = (line: string) => process.stderr.write(`  ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;

interface Run {
  settings: SoakSettings;
  api: ServiceProcess;
  worker: ServiceProcess;
  smtp: SmtpCounter;
  db: pg.Client;
  sockets: CableClients;
}

/** Running totals at one instant. */
interface Snapshot {
  at: Date;
  cpu: { api: number; worker: number };
  tally: Tally;
  pushes: number;
  emails: number;
  worker: Samples;
}

async function snapshot(run: Run): Promise<Snapshot> {
  for (const service of [run.api, run.worker])
    if (!service.running) throw new Error(`the ${service.name} process ended during the run`);
  const [tally, worker] = await Promise.all([readTally(run.db), scrape(run.worker.url)]);
  return {
    at: new Date(),
    cpu: { api: run.api.cpuSeconds(), worker: run.worker.cpuSeconds() },
    tally,
    pushes: run.sockets.pushesTotal,
    emails: run.smtp.count,
    worker,
  };
}

/** Samples the processes and what the minute brought, once the minute is over. */
async function minuteRow(
  run: Run,
  minute: number,
  load: AlertLoad,
  floors: { api: RssFloor; worker: RssFloor },
  before: Snapshot,
): Promise<{ row: MinuteRow; after: Snapshot }> {
  const rssApi = run.api.rssMiB();
  const rssWorker = run.worker.rssMiB();
  const rssFloor = { api: floors.api.take(), worker: floors.worker.take() };
  if (minute === run.settings.minutes) await load.stop();
  const after = await snapshot(run);
  const [apiMetrics, lateness] = await Promise.all([
    scrape(run.api.url),
    pageLateness(run.db, before.at, after.at),
  ]);
  const depth = (states: string[]) => sum(after.worker, 'queue_jobs', { state: states });
  const seconds = (after.at.getTime() - before.at.getTime()) / 1000;
  const row: MinuteRow = {
    minute,
    loadAverage: loadavg()[0],
    cpuApi: (100 * (after.cpu.api - before.cpu.api)) / seconds,
    cpuWorker: (100 * (after.cpu.worker - before.cpu.worker)) / seconds,
    load: load.takeWindow(),
    rssApi,
    rssWorker,
    rssFloor,
    heapApi: sum(apiMetrics, 'nodejs_heap_size_used_bytes') / MiB,
    heapWorker: sum(after.worker, 'nodejs_heap_size_used_bytes') / MiB,
    got: tallyDelta(after.tally, before.tally),
    pushes: after.pushes - before.pushes,
    emailsAtSink: after.emails - before.emails,
    queue: {
      waiting: depth(['waiting', 'prioritized']),
      active: depth(['active']),
      delayed: depth(['delayed']),
    },
    jobsFailed: failedJobs(after) - failedJobs(before),
    pageLateness: lateness,
    stepLatenessP99: bucketQuantile(
      before.worker,
      after.worker,
      'escalation_step_lateness_seconds',
      0.99,
    ),
  };
  return { row, after };
}

const failedJobs = (at: Snapshot) => sum(at.worker, 'jobs_failed_total');

/** Waits until nothing is pending or queued (delayed steps may stay), at most `seconds`. */
async function drain(run: Run, seconds: number): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const metrics = await scrape(run.worker.url);
    const queued = sum(metrics, 'queue_jobs', { state: ['waiting', 'prioritized', 'active'] });
    if (queued === 0 && (await readTally(run.db)).pagesPending === 0) return true;
    await sleep(1000);
  }
  return false;
}

async function soak(run: Run, load: AlertLoad): Promise<Outcome> {
  const { settings, db } = run;
  const baseline = await snapshot(run);
  const baselineByAccount = await notificationsByAccount(db);
  for (const note of COLUMN_NOTES) log(note);
  console.log(tableHeader());
  const rows: MinuteRow[] = [];
  let before = baseline;
  const floors = { api: new RssFloor(run.api), worker: new RssFloor(run.worker) };
  const start = performance.now();
  load.start();
  for (let minute = 1; minute <= settings.minutes; minute += 1) {
    await sleep(start + minute * 60_000 - performance.now());
    const { row, after } = await minuteRow(run, minute, load, floors, before);
    before = after;
    rows.push(row);
    console.log(tableRow(row));
  }
  floors.api.stop();
  floors.worker.stop();
  log(`load stopped; waiting up to ${settings.drainSeconds} s for the worker to catch up`);
  const drained = await drain(run, settings.drainSeconds);
  await sleep(2000); // the last pushes and e-mails in flight
  const end = await snapshot(run);
  return {
    rows,
    drained,
    got: tallyDelta(end.tally, baseline.tally),
    notificationsByAccount: await notificationsByAccount(db),
    baselineByAccount,
    emailsAtSink: end.emails - baseline.emails,
    pushes: end.pushes - baseline.pushes,
    jobsFailed: failedJobs(end) - failedJobs(baseline),
  };
}

/**
 * The soak bench: the built API and worker as their own processes on a temporary database
 * and Redis prefix, e-mail into a counting SMTP server, a customer set up through the public
 * API, Action Cable clients subscribed to their notifications, and Alertmanager webhooks at a
 * fixed rate for `SOAK_MINUTES`. Prints one row per minute and a summary; exits non-zero when
 * a target is missed (no errors, resident memory growth under 10 % after the first minute).
 */
async function main(): Promise<number> {
  const settings = soakSettings();
  const database = await createTestDatabase();
  const prefix = uniqueRedisPrefix();
  const smtp = await SmtpCounter.start();
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const services: ServiceProcess[] = [];
  let sockets: CableClients | null = null;
  try {
    const [apiPort, workerPort] = [await freePort(), await freePort()];
    const env = {
      NODE_ENV: 'production',
      SECRET_KEY: randomBytes(32).toString('hex'),
      PORT: String(apiPort),
      WORKER_PORT: String(workerPort),
      PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl(),
      REDIS_PREFIX: prefix,
      SMTP_URL: smtp.url,
      SHUTDOWN_DELAY_SECONDS: '0',
      LOG_LEVEL: settings.logLevel,
    };
    const api = await ServiceProcess.start('API', API_ENTRY, apiPort, env);
    services.push(api);
    const worker = await ServiceProcess.start('worker', WORKER_ENTRY, workerPort, env);
    services.push(worker);
    const customer = await new CustomerSetup(api.url, smtp).run();
    sockets = await CableClients.connect(api.url, customer.members, settings.sockets);
    log(
      `API pid ${api.pid}, worker pid ${worker.pid}; ${customer.members.length} members, ` +
        `${settings.sockets} sockets; ${settings.rate} alerts/s as ${settings.alertsPerPayload}-alert ` +
        `payloads for ${settings.minutes} min over ${settings.fingerprints} fingerprints ` +
        `(blocks of ${settings.flipSeconds} s, ${settings.resolvedShare * 100}% resolved); ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
    const run: Run = { settings, api, worker, smtp, db, sockets };
    const load = new AlertLoad(settings, api.url, customer.projectId, customer.ingestToken);
    const outcome = await soak(run, load);
    const { lines, met } = summarize(run, outcome);
    for (const line of lines) console.log(line);
    return met ? 0 : 1;
  } finally {
    sockets?.close();
    for (const service of services.reverse()) await service.stop();
    await smtp.close();
    await db.end();
    await database.drop();
    await deleteRedisPrefix(prefix);
  }
}

process.exit(await main());
