import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  createTestDatabase,
  deleteRedisPrefix,
  redisUrl,
  uniqueRedisPrefix,
} from '@platform/testing';
import { Queue } from 'bullmq';
import pg from 'pg';
import { Pool } from 'undici';

/**
 * Alert ingest throughput: the real API process (the built apps/api entry point) on a
 * temporary database and Redis prefix, fed Alertmanager payloads of ALERTS_PER_PAYLOAD alerts
 * at rising concurrency, and the bare SQL upsert of the same rows through `pg` at the same
 * concurrency, for the per-alert cost ratio (the two alternate in rounds within each level).
 * Last, a pass of payloads whose alerts are all new (first firings, which write search rows),
 * through the API and as bare SQL. The worker does not run: dispatch jobs pile up in Redis as
 * they would while workers catch up.
 */
const LEVELS = (process.env.BENCH_LEVELS ?? '1,2,4,8,16').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Each level's seconds are split into this many alternating API and bare SQL rounds. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const ALERTS_PER_PAYLOAD = Number(process.env.BENCH_ALERTS_PER_PAYLOAD ?? 100);
const FINGERPRINTS = Number(process.env.BENCH_FINGERPRINTS ?? 5_000);
const PAYLOADS = Number(process.env.BENCH_PAYLOADS ?? 400);
/**
 * Share of fingerprints resolved at any time. Each fingerprint keeps its status for a block of
 * BLOCK payloads and may flip between blocks, so most deliveries are redeliveries (as
 * Alertmanager's repeat and group intervals make them) with first firings, resolutions and
 * recurrences in between.
 */
const RESOLVED_SHARE = Number(process.env.BENCH_RESOLVED_SHARE ?? 0.1);
const BLOCK = Number(process.env.BENCH_STATUS_BLOCK ?? 200);
const API_LOG_LEVEL = process.env.BENCH_API_LOG_LEVEL ?? 'warn';
/** Payloads of never-seen fingerprints for the first-firing pass, sent once each. */
const FRESH_PAYLOADS = Number(process.env.BENCH_FRESH_PAYLOADS ?? 200);
const FRESH_CONCURRENCY = Number(process.env.BENCH_FRESH_CONCURRENCY ?? 4);
const TARGET_RATE = 5000;
const TARGET_P99_MS = 100;
const TARGET_RATIO = 2;

const log = (line: string) => process.stderr.write(`  ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

interface BenchAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

const SEVERITIES = ['critical', 'high', 'warning', 'info'];

/** A stable pseudo-random number in [0, 1) per (fingerprint, block). */
function unitHash(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x27d4eb2f, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h ^= h >>> 12;
  return (h >>> 0) / 2 ** 32;
}

/**
 * Payloads as Alertmanager groups them: 100 alerts with consecutive fingerprints (so they are
 * in fingerprint order and overlapping payloads contend for rows as real redeliveries do).
 * Each fingerprint keeps its labels; status varies between payloads, so the run mixes first
 * firings, redeliveries, resolutions and recurrences.
 */
function makePayloads(): { alerts: BenchAlert[]; body: string }[] {
  const fingerprint = (i: number) => `bench-${i.toString(16).padStart(8, '0')}`;
  const startsAt = new Date(Date.now() - 3_600_000).toISOString();
  const payloads: { alerts: BenchAlert[]; body: string }[] = [];
  for (let p = 0; p < PAYLOADS; p += 1) {
    const first = Math.floor(Math.random() * (FINGERPRINTS - ALERTS_PER_PAYLOAD));
    const alerts: BenchAlert[] = [];
    const block = Math.floor(p / BLOCK);
    for (let i = first; i < first + ALERTS_PER_PAYLOAD; i += 1) {
      const resolved = unitHash(i, block) < RESOLVED_SHARE;
      alerts.push({
        status: resolved ? 'resolved' : 'firing',
        labels: {
          alertname: `BenchAlert${i % 50}`,
          severity: SEVERITIES[i % SEVERITIES.length],
          instance: `node-${i % 500}.example.internal:9100`,
          job: 'node',
          service: `svc-${i % 20}`,
        },
        annotations: {
          summary: `Instance node-${i % 500} is degraded`,
          description: 'Latency p99 above 1s for 5 minutes on the primary request path.',
        },
        startsAt,
        endsAt: resolved ? new Date().toISOString() : '0001-01-01T00:00:00Z',
        generatorURL: `http://prometheus:9090/graph?g0.expr=up%7Binstance%3D%22node-${i % 500}%22%7D`,
        fingerprint: fingerprint(i),
      });
    }
    const body = JSON.stringify({
      version: '4',
      groupKey: `{}:{alertname="BenchAlert"}`,
      truncatedAlerts: 0,
      status: 'firing',
      receiver: 'platform-alerts',
      groupLabels: { job: 'node' },
      commonLabels: { job: 'node' },
      commonAnnotations: {},
      externalURL: 'http://alertmanager:9093',
      alerts,
    });
    payloads.push({ alerts, body });
  }
  return payloads;
}

/**
 * Payloads whose alerts were never seen (`fresh-<payload>-<n>`), all firing: every alert is
 * inserted with its fired event, its search row and a dispatch, as at the start of an incident.
 */
function makeFreshPayloads(): { alerts: BenchAlert[]; body: string }[] {
  const startsAt = new Date(Date.now() - 60_000).toISOString();
  return Array.from({ length: FRESH_PAYLOADS }, (_, p) => {
    const alerts: BenchAlert[] = Array.from({ length: ALERTS_PER_PAYLOAD }, (_, i) => ({
      status: 'firing',
      labels: {
        alertname: `FreshAlert${i % 50}`,
        severity: SEVERITIES[i % SEVERITIES.length],
        instance: `fresh-${p}-${i}.example.internal:9100`,
        job: 'node',
      },
      annotations: { summary: `Instance fresh-${p}-${i} is down` },
      startsAt,
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus:9090/graph?g0.expr=up',
      fingerprint: `fresh-${String(p).padStart(4, '0')}-${String(i).padStart(3, '0')}`,
    }));
    return { alerts, body: JSON.stringify({ version: '4', status: 'firing', alerts }) };
  });
}

/** Every payload once, `concurrency` at a time. */
async function runOnce(
  concurrency: number,
  count: number,
  send: (index: number) => Promise<void>,
): Promise<LevelResult> {
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const t0 = performance.now();
        try {
          await send(index);
          latencies.push(performance.now() - t0);
        } catch (error) {
          failures += 1;
          firstFailure ??= (error as Error).message;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    requests: latencies.length,
    alerts: latencies.length * ALERTS_PER_PAYLOAD,
    seconds: (performance.now() - started) / 1000,
    failures,
    latencies,
    firstFailure,
  };
}

interface LevelResult {
  concurrency: number;
  requests: number;
  alerts: number;
  seconds: number;
  failures: number;
  latencies: number[];
  firstFailure?: string;
}

/** `concurrency` loops, each sending its next payload as soon as the last one answered. */
async function runLevel(
  concurrency: number,
  seconds: number,
  send: (index: number) => Promise<void>,
): Promise<LevelResult> {
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let next = Math.floor(Math.random() * PAYLOADS);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const index = next++ % PAYLOADS;
        const t0 = performance.now();
        try {
          await send(index);
          latencies.push(performance.now() - t0);
        } catch (error) {
          failures += 1;
          firstFailure ??= (error as Error).message;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    requests: latencies.length,
    alerts: latencies.length * ALERTS_PER_PAYLOAD,
    seconds: elapsed,
    failures,
    latencies,
    firstFailure,
  };
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts the built API entry point as its own process, as production runs it. */
async function startApi(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const here = dirname(fileURLToPath(import.meta.url));
  const entry = join(here, '..', '..', 'apps', 'api', 'main.js');
  const child = spawn(process.execPath, [entry], {
    // BENCH_API_NODE_OPTIONS reaches only the API process (e.g. a profiler preload).
    env: { ...process.env, NODE_OPTIONS: process.env.BENCH_API_NODE_OPTIONS ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/health/ready`);
      if (res.ok) return { child, url };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the API did not become ready within 60 s');
    await sleep(200);
  }
}

/** The fields of success bodies the set-up reads. */
interface ApiData {
  version: number;
  content_hash: string;
  id: string;
  token: string;
  memberships: Array<{ organization_id: string }>;
}

async function api(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: { data: ApiData } }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : {} };
}

async function expectStatus<T extends { status: number; body: unknown }>(
  promise: Promise<T>,
  status: number,
  what: string,
): Promise<T> {
  const res = await promise;
  if (res.status !== status)
    throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res;
}

/** An account, its organization, two projects with the alerts capability, an ingest token. */
async function setUp(url: string, db: pg.Client) {
  const consent: Record<string, unknown> = {};
  for (const docType of ['agb', 'nutzungsbedingungen', 'datenschutz']) {
    const doc = await expectStatus(api(url, 'GET', `/legal/${docType}`), 200, 'legal');
    consent[`legal_${docType}_version`] = doc.body.data.version;
    consent[`legal_${docType}_hash`] = doc.body.data.content_hash;
  }
  const password = 'bench password 12345';
  const login = 'bench@bench.example';
  await expectStatus(
    api(url, 'POST', '/create-account', {
      login,
      name: 'Bench',
      password,
      'password-confirm': password,
      organization_name: 'Bench Org',
      ...consent,
    }),
    201,
    'signup',
  );
  // The verification mail would go through the worker, which the bench does not run.
  await db.query('UPDATE account SET email_verified_at = now() WHERE login = $1', [login]);
  const session = await expectStatus(api(url, 'POST', '/login', { login, password }), 200, 'login');
  const auth = { authorization: session.headers.get('authorization')! };
  const me = await expectStatus(api(url, 'GET', '/accounts/me', undefined, auth), 200, 'me');
  const org = me.body.data.memberships[0].organization_id;
  const projects: string[] = [];
  for (const name of ['bench-api', 'bench-sql']) {
    const project = await expectStatus(
      api(url, 'POST', `/organizations/${org}/projects`, { name }, auth),
      201,
      'project',
    );
    const id = project.body.data.id;
    await expectStatus(
      api(
        url,
        'PUT',
        `/organizations/${org}/projects/${id}/feature-grants/alerts`,
        { approved_configuration: { allowed_kinds: null } },
        auth,
      ),
      200,
      'grant',
    );
    projects.push(id);
  }
  const minted = await expectStatus(
    api(url, 'POST', `/projects/${projects[0]}/alert_ingest_tokens`, {}, auth),
    201,
    'ingest token',
  );
  return {
    apiProject: projects[0],
    sqlProject: projects[1],
    token: minted.body.data.token,
  };
}

/** The plain upsert the API's statement is measured against: same rows, no transitions. */
const BARE_UPSERT = `
INSERT INTO alert (project_id, fingerprint, status, severity, labels, annotations, starts_at,
                   ends_at, generator_url, last_received_at, created_at, updated_at)
SELECT $1, f, s, sv, l, a, st, en, g, now(), now(), now()
  FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[], $7::timestamptz[],
              $8::timestamptz[], $9::text[]) AS i(f, s, sv, l, a, st, en, g)
ON CONFLICT (project_id, fingerprint) DO UPDATE SET
  status = EXCLUDED.status, severity = EXCLUDED.severity, labels = EXCLUDED.labels,
  annotations = EXCLUDED.annotations, starts_at = EXCLUDED.starts_at,
  ends_at = EXCLUDED.ends_at, generator_url = EXCLUDED.generator_url,
  last_received_at = EXCLUDED.last_received_at, updated_at = EXCLUDED.updated_at`;

function bareParams(projectId: string, alerts: BenchAlert[]): unknown[] {
  return [
    projectId,
    alerts.map((a) => a.fingerprint),
    alerts.map((a) => a.status),
    alerts.map((a) => a.labels.severity),
    alerts.map((a) => JSON.stringify(a.labels)),
    alerts.map((a) => JSON.stringify(a.annotations)),
    alerts.map((a) => a.startsAt),
    alerts.map((a) => (a.status === 'resolved' ? a.endsAt : null)),
    alerts.map((a) => a.generatorURL),
  ];
}

function describeLevel(result: LevelResult): { rate: number; p50: number; p99: number } {
  return {
    rate: result.alerts / result.seconds,
    p50: percentile(result.latencies, 50),
    p99: percentile(result.latencies, 99),
  };
}

const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** Linux accounts process CPU in clock ticks of 10 ms (USER_HZ 100). */
const TICK_MS = 10;

/** User plus system CPU milliseconds of a process (all its threads), from /proc. */
function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

interface CpuSnapshot {
  api: number;
  self: NodeJS.CpuUsage;
  backends: Map<number, number>;
}

/**
 * CPU used so far by the API process, this process, and every server backend of the bench
 * database (the API's pool, the bare SQL pool); other databases' backends do not count, so
 * tests running beside the bench do not inflate the figures.
 */
async function cpuSnapshot(db: pg.Client, apiPid: number): Promise<CpuSnapshot> {
  const { rows } = await db.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  const backends = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms !== null) backends.set(pid, ms);
  }
  return { api: processCpuMs(apiPid) ?? 0, self: process.cpuUsage(), backends };
}

interface Measured {
  result: LevelResult;
  cpu: { api: number; self: number; backends: number };
}

/** Two rounds of one level as one. */
function combine(total: Measured | undefined, round: Measured): Measured {
  if (!total) return round;
  const a = total.result;
  const b = round.result;
  return {
    result: {
      concurrency: a.concurrency,
      requests: a.requests + b.requests,
      alerts: a.alerts + b.alerts,
      seconds: a.seconds + b.seconds,
      failures: a.failures + b.failures,
      latencies: [...a.latencies, ...b.latencies].sort((x, y) => x - y),
      firstFailure: a.firstFailure ?? b.firstFailure,
    },
    cpu: {
      api: total.cpu.api + round.cpu.api,
      self: total.cpu.self + round.cpu.self,
      backends: total.cpu.backends + round.cpu.backends,
    },
  };
}

function cpuDelta(before: CpuSnapshot, after: CpuSnapshot) {
  let backends = 0;
  for (const [pid, ms] of after.backends) backends += ms - (before.backends.get(pid) ?? 0);
  const self = process.cpuUsage(before.self);
  return { api: after.api - before.api, self: (self.user + self.system) / 1000, backends };
}

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const prefix = uniqueRedisPrefix();
  let child: ChildProcess | undefined;
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const lines: string[] = [];
  try {
    const port = await freePort();
    const started = await startApi({
      NODE_ENV: 'production',
      SECRET_KEY: randomBytes(32).toString('hex'),
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl(),
      REDIS_PREFIX: prefix,
      LOG_LEVEL: API_LOG_LEVEL,
    });
    child = started.child;
    const { apiProject, sqlProject, token } = await setUp(started.url, db);
    const payloads = makePayloads();
    log(
      `API pid ${child.pid} on ${started.url}; ${PAYLOADS} payloads of ${ALERTS_PER_PAYLOAD} alerts over ${FINGERPRINTS} fingerprints, ${RESOLVED_SHARE * 100}% resolved; ${SECONDS} s per level`,
    );

    const maxLevel = Math.max(...LEVELS);
    const http = new Pool(started.url, { connections: maxLevel, pipelining: 1 });
    const path = `/projects/${apiProject}/alerts`;
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const sendHttp = async (index: number) => {
      const res = await http.request({ method: 'POST', path, headers, body: payloads[index].body });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    };

    const sql = new pg.Pool({ connectionString: database.url, max: maxLevel });
    const bare = payloads.map((p) => bareParams(sqlProject, p.alerts));
    const sendSql = async (index: number) => {
      // Prepared once per connection, as the API's ingest statement is.
      await sql.query({ name: 'bare-upsert', text: BARE_UPSERT, values: bare[index] });
    };

    await runLevel(4, WARMUP_SECONDS, sendHttp);
    await runLevel(4, WARMUP_SECONDS, sendSql);
    await db.query('ANALYZE alert');

    const apiPid = child.pid!;
    const measureRound = async (
      concurrency: number,
      send: (index: number) => Promise<void>,
    ): Promise<Measured> => {
      const before = await cpuSnapshot(db, apiPid);
      const result = await runLevel(concurrency, SECONDS / ROUNDS, send);
      return { result, cpu: cpuDelta(before, await cpuSnapshot(db, apiPid)) };
    };
    // The API and the bare SQL take turns, in rounds, so that whatever drifts on the machine
    // during a level (checkpoints, autovacuum, other load) weighs on both alike.
    const measure = async (concurrency: number) => {
      let viaApi: Measured | undefined;
      let viaSql: Measured | undefined;
      for (let round = 0; round < ROUNDS; round += 1) {
        if (round % 2 === 0) {
          viaApi = combine(viaApi, await measureRound(concurrency, sendHttp));
          viaSql = combine(viaSql, await measureRound(concurrency, sendSql));
        } else {
          viaSql = combine(viaSql, await measureRound(concurrency, sendSql));
          viaApi = combine(viaApi, await measureRound(concurrency, sendHttp));
        }
      }
      return { viaApi: viaApi!, viaSql: viaSql! };
    };

    lines.push(
      [
        'concurrency',
        'API alerts/s',
        'API p50 ms',
        'API p99 ms',
        'SQL alerts/s',
        'SQL p50 ms',
        'SQL p99 ms',
        'wall µs/alert API',
        'SQL',
        'ratio',
        'CPU µs/alert API',
        'SQL',
        'ratio',
      ].join(' | '),
    );
    const summary: Array<{ c: number; rate: number; p99: number; wall: number; cpu: number }> = [];
    for (const concurrency of LEVELS) {
      const { viaApi, viaSql } = await measure(concurrency);
      for (const [name, { result }] of [
        ['API', viaApi],
        ['SQL', viaSql],
      ] as const) {
        if (result.failures > 0)
          log(
            `${name} c=${concurrency}: ${result.failures} failures, first: ${result.firstFailure}`,
          );
      }
      const a = describeLevel(viaApi.result);
      const s = describeLevel(viaSql.result);
      const apiWall = 1e6 / a.rate;
      const sqlWall = 1e6 / s.rate;
      // API: the API process and its database backends. SQL: the bench process (the client
      // that builds and sends the statements) and its backends.
      const apiCpu = ((viaApi.cpu.api + viaApi.cpu.backends) * 1000) / viaApi.result.alerts;
      const sqlCpu = ((viaSql.cpu.self + viaSql.cpu.backends) * 1000) / viaSql.result.alerts;
      summary.push({
        c: concurrency,
        rate: a.rate,
        p99: a.p99,
        wall: apiWall / sqlWall,
        cpu: apiCpu / sqlCpu,
      });
      const line = [
        String(concurrency).padStart(11),
        fmt(a.rate, 0).padStart(12),
        fmt(a.p50).padStart(10),
        fmt(a.p99).padStart(10),
        fmt(s.rate, 0).padStart(12),
        fmt(s.p50).padStart(10),
        fmt(s.p99).padStart(10),
        fmt(apiWall).padStart(17),
        fmt(sqlWall).padStart(5),
        fmt(apiWall / sqlWall, 2).padStart(5),
        fmt(apiCpu).padStart(16),
        fmt(sqlCpu).padStart(5),
        fmt(apiCpu / sqlCpu, 2).padStart(5),
      ].join(' | ');
      log(line);
      log(
        `  CPU µs/alert: API process ${fmt((viaApi.cpu.api * 1000) / viaApi.result.alerts)}, its backends ${fmt((viaApi.cpu.backends * 1000) / viaApi.result.alerts)}, HTTP client ${fmt((viaApi.cpu.self * 1000) / viaApi.result.alerts)}; bare client ${fmt((viaSql.cpu.self * 1000) / viaSql.result.alerts)}, its backends ${fmt((viaSql.cpu.backends * 1000) / viaSql.result.alerts)}`,
      );
      lines.push(line);
    }

    const freshPayloads = makeFreshPayloads();
    const freshBare = freshPayloads.map((p) => bareParams(sqlProject, p.alerts));
    const freshApi = await runOnce(FRESH_CONCURRENCY, freshPayloads.length, async (index) => {
      const body = freshPayloads[index].body;
      const res = await http.request({ method: 'POST', path, headers, body });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    });
    const freshSql = await runOnce(FRESH_CONCURRENCY, freshPayloads.length, async (index) => {
      await sql.query({ name: 'bare-upsert', text: BARE_UPSERT, values: freshBare[index] });
    });
    for (const [name, result] of [
      ['API', freshApi],
      ['SQL', freshSql],
    ] as const) {
      if (result.failures > 0)
        log(`${name} first firings: ${result.failures} failures, first: ${result.firstFailure}`);
    }
    const fa = describeLevel(freshApi);
    const fs = describeLevel(freshSql);
    lines.push(
      `first firings (${freshPayloads.length} payloads of ${ALERTS_PER_PAYLOAD} new alerts, concurrency ${FRESH_CONCURRENCY}): ` +
        `API ${fmt(fa.rate, 0)} alerts/s (p50 ${fmt(fa.p50)} ms, p99 ${fmt(fa.p99)} ms), ` +
        `bare SQL ${fmt(fs.rate, 0)} alerts/s (p50 ${fmt(fs.p50)} ms, p99 ${fmt(fs.p99)} ms), ` +
        `wall ratio ${fmt(fs.rate / fa.rate, 2)}`,
    );
    await http.close();
    await sql.end();

    const [{ alerts, events }] = (
      await db.query(
        `SELECT (SELECT count(*) FROM alert WHERE project_id = $1) AS alerts,
                (SELECT count(*) FROM alert_event WHERE project_id = $1) AS events`,
        [apiProject],
      )
    ).rows as Array<{ alerts: string; events: string }>;
    const queue = new Queue('escalations', { connection: { url: redisUrl() }, prefix });
    const counts = await queue.getJobCounts('waiting', 'prioritized');
    await queue.close();
    lines.push(
      `ingested: ${alerts} alerts, ${events} timeline events, ${counts.waiting + counts.prioritized} dispatch jobs waiting`,
    );
    const best = summary.reduce((x, y) => (y.rate > x.rate ? y : x));
    const withinP99 = summary.filter((r) => r.p99 < TARGET_P99_MS);
    const bestWithinP99 = withinP99.length
      ? withinP99.reduce((x, y) => (y.rate > x.rate ? y : x))
      : undefined;
    const describe = (r: (typeof summary)[number]) =>
      `${fmt(r.rate, 0)} alerts/s at concurrency ${r.c} (p99 ${fmt(r.p99)} ms, cost ratio ${fmt(r.wall, 2)} wall, ${fmt(r.cpu, 2)} CPU)`;
    lines.push(
      `peak ${describe(best)}; ` +
        (bestWithinP99
          ? `best with p99 < ${TARGET_P99_MS} ms: ${describe(bestWithinP99)}`
          : `no level had p99 < ${TARGET_P99_MS} ms`),
      `targets: >= ${TARGET_RATE} alerts/s sustained, p99 < ${TARGET_P99_MS} ms, per-alert cost <= ${TARGET_RATIO}x bare SQL`,
    );
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child!.once('exit', resolve));
    }
    await db.end();
    await database.drop();
    await deleteRedisPrefix(prefix);
  }
  for (const line of lines) console.log(line);
}

await main();
