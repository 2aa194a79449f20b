import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { OpenStackConfig } from '@platform/core';
import { SessionTokens } from '@platform/identity';
import { fileURLToPath } from 'node:url';
import { createTestApp, DeployableProcess, freeLocalPorts, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { ApiModule } from '../../apps/api/api.module.js';

const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 20);
const SERVERS_PER_PROJECT = Number(process.env.BENCH_SERVERS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const TARGET_OVERHEAD_P50_MS = 2;

/** The API deployable, built from the same sources as the bench. */
const API_ENTRY = fileURLToPath(new URL('../../apps/api/main.js', import.meta.url));

const log = (line: string) => process.stderr.write(`  ${line}\n`);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

interface Target {
  url: string;
  headers: Record<string, string>;
}

/** A thread's first message, then a function asking it for more. */
function thread<T>(file: string): Promise<{ worker: Worker; first: T }> {
  const worker = new Worker(new URL(file, import.meta.url));
  return new Promise((resolve, reject) => {
    worker.once('message', (first: T) => resolve({ worker, first }));
    worker.once('error', reject);
  });
}

interface Measured {
  /** Sorted latencies, ms. */
  latencies: number[];
  wallMs: number;
}

function load(worker: Worker, targets: Target[], total: number, concurrency: number) {
  return new Promise<Measured>((resolve, reject) => {
    worker.once('message', (m: { latencies?: number[]; wallMs?: number; error?: string }) =>
      m.error
        ? reject(new Error(m.error))
        : resolve({ latencies: m.latencies!.sort((a, b) => a - b), wallMs: m.wallMs! }),
    );
    worker.postMessage({ targets, total, concurrency });
  });
}

/** An admin of one organization with PROJECTS projects, each granted every openstack kind. */
async function tenant(t: TestApp): Promise<{ token: string; projects: string[] }> {
  const db = t.get(DataSource);
  const now = t.clock.now();
  const [{ id: accountId }]: Array<{ id: string }> = await db.query(
    `INSERT INTO account (login, login_key, name, email_verified_at)
     VALUES ('bench@bench.example', 'bench@bench.example', 'Bench', $1) RETURNING id`,
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
     SELECT id, 'openstack', NULL, $2, $2 FROM unnest($1::uuid[]) AS id`,
    [projects.map((p) => p.id), now],
  );
  const { token } = await t.get(SessionTokens).issue(accountId);
  return { token, projects: projects.map((p) => p.id) };
}

/** A project-scoped token straight from the fake's Keystone, as the platform gets one. */
async function projectToken(config: OpenStackConfig, keystoneProjectId: string): Promise<string> {
  const response = await fetch(`${config.authUrl}/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      auth: {
        identity: {
          methods: ['password'],
          password: {
            user: {
              name: config.username,
              domain: { name: config.userDomain },
              password: config.password,
            },
          },
        },
        scope: { project: { id: keystoneProjectId } },
      },
    }),
  });
  if (response.status !== 201) throw new Error(`auth answered ${response.status}`);
  return response.headers.get('x-subject-token')!;
}

/** CPU seconds (user + system) a process has used, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface RunFigures {
  p50: number;
  p99: number;
  /** Wall time per request at this concurrency: what each request costs the bottleneck. */
  serviceMs: number;
}

function figures(label: string, run: Measured, requests: number): RunFigures {
  const p50 = percentile(run.latencies, 50);
  const p99 = percentile(run.latencies, 99);
  const serviceMs = run.wallMs / requests;
  log(
    `${label.padEnd(34)} p50 ${p50.toFixed(2).padStart(7)} ms   p99 ${p99.toFixed(2).padStart(7)} ms   ${Math.round(
      requests / (run.wallMs / 1000),
    )
      .toString()
      .padStart(6)} req/s`,
  );
  return { p50, p99, serviceMs };
}

async function main(): Promise<boolean> {
  log(
    `GET /cloud/servers: ${CONCURRENCY} concurrent, ${REQUESTS} requests per run over ${PROJECTS} projects (${SERVERS_PER_PROJECT} servers each), ${ROUNDS} rounds`,
  );
  const fake = await thread<{ config: OpenStackConfig; origin: string }>('./fake-thread.js');
  // The database (migrated) and the tenant come from a test app; the API under measure is
  // the deployable in its own process, configured through the environment like production.
  const t = await createTestApp((config) => ApiModule.forRoot(config), {
    config: { logLevel: 'silent' },
  });
  const [port] = await freeLocalPorts(1);
  const openstack = fake.first.config;
  const api = await DeployableProcess.start(API_ENTRY, t.config, {
    env: {
      PORT: String(port),
      OPENSTACK_AUTH_URL: openstack.authUrl,
      OPENSTACK_USERNAME: openstack.username,
      OPENSTACK_PASSWORD: openstack.password,
      OPENSTACK_REGION: openstack.region ?? '',
    },
    nodeArgs: (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean),
    ready: { url: `http://127.0.0.1:${port}/health/ready` },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const loader = new Worker(new URL('./load-thread.js', import.meta.url));
  try {
    const { token, projects } = await tenant(t);
    const auth = { authorization: `Bearer ${token}` };
    for (const projectId of projects) {
      for (let i = 0; i < SERVERS_PER_PROJECT; i++) {
        const res = await fetch(`${baseUrl}/cloud/servers?project_id=${projectId}`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: `s${i}`,
            flavorRef: 'm1.small',
            imageRef: '5e1a4d4c-3f0b-4a57-9d41-0c1b0d1e6a01',
            networks: [],
          }),
        });
        if (res.status !== 202) throw new Error(`server create answered ${res.status}`);
      }
    }
    const keystoneIds: Array<{ tenant_id: string; keystone_project_id: string }> = await t
      .get(DataSource)
      .query(
        `SELECT tenant_id, keystone_project_id FROM openstack_project WHERE tenant_kind = 'project'`,
      );
    const apiTargets = projects.map((projectId) => ({
      url: `${baseUrl}/cloud/servers?project_id=${projectId}`,
      headers: auth,
    }));
    const bareTargets: Target[] = [];
    for (const { keystone_project_id } of keystoneIds) {
      bareTargets.push({
        url: `${fake.first.origin}/compute/v2.1/servers/detail`,
        headers: { 'x-auth-token': await projectToken(fake.first.config, keystone_project_id) },
      });
    }
    // Warm both paths (JIT, connections), then alternate the runs so drift hits both alike.
    await load(loader, apiTargets, 1000, CONCURRENCY);
    await load(loader, bareTargets, 1000, CONCURRENCY);
    const rounds: Array<{ api: RunFigures; bare: RunFigures; apiCpuMs: number }> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const cpuBefore = cpuSeconds(api.pid!);
      const apiRun = await load(loader, apiTargets, REQUESTS, CONCURRENCY);
      const apiCpuMs = ((cpuSeconds(api.pid!) - cpuBefore) * 1000) / REQUESTS;
      const through = figures(`round ${round}: through the API`, apiRun, REQUESTS);
      const bare = figures(
        `round ${round}: bare upstream call`,
        await load(loader, bareTargets, REQUESTS, CONCURRENCY),
        REQUESTS,
      );
      log(`round ${round}: API process CPU per request ${apiCpuMs.toFixed(2)} ms`);
      rounds.push({ api: through, bare, apiCpuMs });
    }
    const single = { api: [] as number[], bare: [] as number[] };
    for (let i = 0; i < 3; i++) {
      single.api.push(percentile((await load(loader, apiTargets, 300, 1)).latencies, 50));
      single.bare.push(percentile((await load(loader, bareTargets, 300, 1)).latencies, 50));
    }
    const overhead = Math.min(...single.api) - Math.min(...single.bare);
    const best = (pick: (r: (typeof rounds)[number]) => number) => Math.min(...rounds.map(pick));
    log('');
    log(
      `one request at a time, p50 (best of 3): through the API ${Math.min(...single.api).toFixed(2)} ms, bare ${Math.min(...single.bare).toFixed(2)} ms`,
    );
    log(
      `overhead per request over the bare upstream call, p50: ${overhead.toFixed(2)} ms (target < ${TARGET_OVERHEAD_P50_MS} ms: ${overhead < TARGET_OVERHEAD_P50_MS ? 'met' : 'NOT met'})`,
    );
    log(
      `at ${CONCURRENCY} concurrent (best round): wall time per request ${best((r) => r.api.serviceMs).toFixed(2)} ms through the API, ${best((r) => r.bare.serviceMs).toFixed(2)} ms bare; API CPU ${best((r) => r.apiCpuMs).toFixed(2)} ms per request`,
    );
    log(
      `load average: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    return overhead < TARGET_OVERHEAD_P50_MS;
  } finally {
    loader.postMessage({ close: true });
    fake.worker.postMessage({ close: true });
    await api.stop();
    await t.close();
  }
}

process.exit((await main()) ? 0 : 1);
