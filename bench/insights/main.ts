import 'reflect-metadata';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { SessionTokens } from '@platform/identity';
import { createTestApp, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { ApiModule } from '../../apps/api/api.module.js';
import { rawInsights } from './raw-insights.js';
import { rebuildRollups, seedInsights } from './seed.js';

const ALERTS = Number(process.env.BENCH_ALERTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const ACCOUNTS = 50;
const WINDOWS = [7, 30, 90] as const;
const TARGET_MS = 250;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** An admin of one organization, its project with the alerts grant, and on-call accounts. */
async function tenant(t: TestApp) {
  const db = t.get(DataSource);
  const now = t.clock.now();
  const [{ id: adminId }]: Array<{ id: string }> = await db.query(
    `INSERT INTO account (login, login_key, name, email_verified_at)
     VALUES ('bench@bench.example', 'bench@bench.example', 'Bench', $1) RETURNING id`,
    [now],
  );
  const [{ id: organizationId }]: Array<{ id: string }> = await db.query(
    `INSERT INTO organization (name) VALUES ('Insights bench') RETURNING id`,
  );
  const accounts: Array<{ id: string }> = await db.query(
    `INSERT INTO account (login, login_key, name, email_verified_at)
     SELECT 'oncall-' || i || '@bench.example', 'oncall-' || i || '@bench.example',
            'On-call ' || i, $1
       FROM generate_series(1, $2::int) AS i RETURNING id`,
    [now, ACCOUNTS],
  );
  await db.query(
    `INSERT INTO membership (organization_id, account_id, role)
     SELECT $1, id, CASE WHEN id = $2 THEN 'admin' ELSE 'developer' END
       FROM unnest($3::uuid[]) AS id`,
    [organizationId, adminId, [adminId, ...accounts.map((a) => a.id)]],
  );
  const [{ id: projectId }]: Array<{ id: string }> = await db.query(
    `INSERT INTO project (organization_id, name) VALUES ($1, 'production') RETURNING id`,
    [organizationId],
  );
  await db.query(
    `INSERT INTO feature_grant (project_id, feature_key, allowed_kinds, created_at, updated_at)
     VALUES ($1, 'alerts', NULL, $2, $2)`,
    [projectId, now],
  );
  const { token } = await t.get(SessionTokens).issue(adminId);
  return { token, projectId, accountIds: accounts.map((a) => a.id) };
}

/**
 * Seeds ALERTS alerts with their timeline, acknowledgements, escalations and ledger over 90
 * days in one project (rollups rebuilt after the load, as after any bulk load that bypasses
 * triggers), then times `GET /projects/{id}/alerts/insights?days=7|30|90` through the HTTP
 * API, one request at a time: ROUNDS requests per window after three untimed ones. Each
 * window's answer is then checked figure by figure against the raw rows of the whole window.
 */
async function main(): Promise<string[]> {
  const t = await createTestApp((config) => ApiModule.forRoot(config), { listen: true });
  try {
    const { token, projectId, accountIds } = await tenant(t);
    const seeding = performance.now();
    await seedInsights(t, projectId, accountIds, ALERTS, t.clock.now());
    const seeded = ((performance.now() - seeding) / 1000).toFixed(1);
    const rebuilding = performance.now();
    await rebuildRollups(t);
    const rebuilt = ((performance.now() - rebuilding) / 1000).toFixed(1);

    const headers = { Authorization: `Bearer ${token}` };
    const request = async (days: number) => {
      const started = performance.now();
      const res = await fetch(`${t.baseUrl}/projects/${projectId}/alerts/insights?days=${days}`, {
        headers,
      });
      const body = (await res.json()) as { data: { totals: { alerts: number } } };
      const elapsed = performance.now() - started;
      if (res.status !== 200)
        throw new Error(`days=${days}: ${res.status} ${JSON.stringify(body)}`);
      return { elapsed, alerts: body.data.totals.alerts, data: body.data };
    };

    const fmt = (v: number) => v.toFixed(1);
    const lines = [
      `alert insights over ${ALERTS} alerts of one project (seeded in ${seeded} s, rollups ` +
        `rebuilt in ${rebuilt} s), ${ROUNDS} requests per window one at a time`,
    ];
    for (const days of WINDOWS) {
      let answer = await request(days);
      for (let i = 0; i < 2; i += 1) answer = await request(days);
      const { alerts } = answer;
      const before = load();
      const samples: number[] = [];
      for (let i = 0; i < ROUNDS; i += 1) samples.push((await request(days)).elapsed);
      samples.sort((a, b) => a - b);
      const p99 = percentile(samples, 99);
      lines.push(
        `  days=${String(days).padEnd(2)} alerts in window=${String(alerts).padStart(7)}  ` +
          `p50=${fmt(percentile(samples, 50))} ms p95=${fmt(percentile(samples, 95))} ms ` +
          `p99=${fmt(p99)} ms max=${fmt(samples[samples.length - 1])} ms ` +
          `(load average before ${before}, after ${load()})` +
          (days === 90
            ? ` — target p99 < ${TARGET_MS} ms: ${p99 < TARGET_MS ? 'met' : 'not met'}`
            : ''),
      );
      const checking = performance.now();
      const raw = await rawInsights(t.get(DataSource), projectId, t.clock.now(), days);
      if (!isDeepStrictEqual(answer.data, raw))
        throw new Error(
          `days=${days}: the API answered ${JSON.stringify(answer.data)}, ` +
            `the raw rows say ${JSON.stringify(raw)}`,
        );
      lines.push(
        `    equal to the figures of the raw rows (computed in ` +
          `${fmt(performance.now() - checking)} ms over the whole window)`,
      );
    }
    return lines;
  } finally {
    await t.close();
  }
}

for (const line of await main()) console.log(line);
