import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AppConfig } from '@platform/core';
import { migrate } from '@platform/database';
import { MIGRATIONS } from '@platform/schema';
import { JobName, QueueName } from '@platform/queue';
import {
  buildDeployables,
  createTestDatabase,
  deleteRedisPrefix,
  DeployableProcess,
  type DeployablesBuild,
  freeLocalPorts,
  PrivatePostgres,
  PrivateRedis,
  SmtpSink,
  type TestDatabase,
  testConfig,
  eventually,
} from '@platform/testing';
import { Queue } from 'bullmq';

/**
 * How often the waits look: every 100 ms, as these tests were written for. A service restarted
 * the moment a faster look saw its condition can be down for less time than a process takes to
 * confirm the outage, and an outage nobody confirmed is neither logged nor followed by the
 * start-up tasks that run again when the service is back.
 */
const RESTART_POLL_MS = 100;

/** A request that has no answer after this long counts as hanging (the conventions' 5 s). */
const ANSWER_WITHIN_MS = 5000;
const LOGIN = { login: 'nobody@outage.example', password: 'not the password at all' };

interface Answer {
  status: number;
  body: Record<string, unknown> & { details?: Record<string, unknown> };
  retryAfter: string | null;
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  const text = await response.text();
  let body: Answer['body'];
  try {
    body = JSON.parse(text) as Answer['body'];
  } catch {
    body = { text };
  }
  return { status: response.status, body, retryAfter: response.headers.get('retry-after') };
}

const login = (base: string) =>
  call(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(LOGIN),
  });

/** The JSON log lines of a process that name `variable`, from its start on. */
function variableLines(lines: string[], variable: string): Array<Record<string, unknown>> {
  return lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.variable === variable);
}

const expectOutage = (answer: Answer, dependency: 'database' | 'redis') => {
  expect(answer).toMatchObject({
    status: 503,
    body: { code: 'service_unavailable', retryable: true, details: { dependency } },
    retryAfter: '5',
  });
};

/**
 * Real API and worker processes whose PostgreSQL or Redis is down at start or goes down while
 * they run, on servers of the test's own: the processes stay up, report live but not ready,
 * answer 503 retryable where the missing service is needed, log the outage once naming the
 * variable, and resume by themselves, without a restart, once it is back.
 */
describe('processes weather PostgreSQL and Redis outages', () => {
  let build: DeployablesBuild;
  let database: TestDatabase;
  let postgres: PrivatePostgres;
  let sink: SmtpSink;
  const processes: DeployableProcess[] = [];
  const prefixes: string[] = [];

  /** Every line a process writes, from its first on (its kept output is bounded). */
  async function start(
    app: 'api' | 'worker',
    overrides: Parameters<typeof testConfig>[1],
    env: Record<string, string>,
    readyUrl: string,
  ): Promise<{ process: DeployableProcess; lines: string[]; config: AppConfig }> {
    const config = testConfig(database, { smtpUrl: sink.url, ...overrides });
    prefixes.push(config.redisPrefix);
    const started = await DeployableProcess.start(build.entry(app), config, {
      env: { SHUTDOWN_DELAY_SECONDS: '0', ...env },
      ready: { url: readyUrl },
    });
    processes.push(started);
    const lines = started.output;
    started.onLine((line) => lines.push(line));
    return { process: started, lines, config };
  }

  beforeAll(async () => {
    build = buildDeployables();
    database = await createTestDatabase();
    sink = await SmtpSink.start();
    postgres = await PrivatePostgres.start();
    await migrate(postgres.url('platform'), MIGRATIONS);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill()));
    await postgres?.destroy();
    await sink?.close();
    await database?.drop();
    for (const prefix of prefixes) await deleteRedisPrefix(prefix);
    await build?.remove();
  });

  it('API: Redis down at start and again mid-run, answered 503 meanwhile, logged once each time', async () => {
    const redis = await PrivateRedis.stopped();
    const [port] = await freeLocalPorts(1);
    const base = `http://127.0.0.1:${port}`;
    const { process: api, lines } = await start(
      'api',
      { redisUrl: redis.url() },
      { PORT: String(port) },
      `${base}/health/live`,
    );
    try {
      expect((await call(`${base}/health/live`)).status).toBe(200);
      expect(await call(`${base}/health/ready`)).toMatchObject({
        status: 503,
        body: {
          code: 'service_unavailable',
          details: { checks: { redis: { status: 'down' }, database: { status: 'up' } } },
        },
      });
      // Login counts failures in Redis; the legal documents need only PostgreSQL.
      expectOutage(await login(base), 'redis');
      expect((await call(`${base}/legal/agb`)).status).toBe(200);

      await redis.start();
      await eventually(async () => (await call(`${base}/health/ready`)).status === 200, {
        what: 'ready',
        intervalMs: RESTART_POLL_MS,
      });
      expect(await login(base)).toMatchObject({
        status: 401,
        body: { code: 'invalid_credentials' },
      });

      await redis.stop();
      await eventually(async () => (await login(base)).status === 503, {
        what: 'a 503 mid-run',
        intervalMs: RESTART_POLL_MS,
      });
      expectOutage(await login(base), 'redis');
      await redis.start();
      await eventually(async () => (await login(base)).status === 401, {
        what: 'logins after the outage',
        intervalMs: RESTART_POLL_MS,
      });

      // One line when an outage starts and one when it ends, never one per retry. On a
      // loaded machine a slow reconnection of one of the process's Redis connections can make
      // a short third outage right after the second: still a line each, never a run of them.
      const logged = variableLines(lines, 'REDIS_URL');
      const levels = logged.map((line) => `${String(line.level)} ${String(line.dependency)}`);
      expect(levels.slice(0, 4)).toEqual([
        'error redis',
        'info redis',
        'error redis',
        'info redis',
      ]);
      expect(levels.length % 2).toBe(0);
      expect(levels.length).toBeLessThanOrEqual(6);
      levels.forEach((level, n) => expect(level).toBe(n % 2 === 0 ? 'error redis' : 'info redis'));
      expect(String(logged[0].message)).toContain(`REDIS_URL=${redis.url()}`);
      // Nothing but JSON lines: no stack traces, no per-retry "Unhandled error event"; the
      // refused connections appear only in the outage lines.
      expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
      // The outage at start shows as a refused connection; the one mid-run may show first as a
      // command on the closed stream ("Stream isn't writeable"), whichever the client meets.
      const refused = lines.filter((line) => line.includes('ECONNREFUSED'));
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(
        refused.every((line) => (JSON.parse(line) as { level?: string }).level === 'error'),
      ).toBe(true);
      expect(refused.length).toBeLessThanOrEqual(
        levels.filter((level) => level === 'error redis').length,
      );
      expect(api.exited).toBe(false);
    } finally {
      await redis.stop();
    }
  }, 120_000);

  it('API: PostgreSQL down at start is served 503 and used as soon as it answers', async () => {
    await postgres.stop();
    const [port] = await freeLocalPorts(1);
    const base = `http://127.0.0.1:${port}`;
    const { process: api, lines } = await start(
      'api',
      { databaseUrl: postgres.url('platform') },
      { PORT: String(port) },
      `${base}/health/live`,
    );
    expect(await call(`${base}/health/ready`)).toMatchObject({
      status: 503,
      body: { details: { checks: { database: { status: 'down' }, redis: { status: 'up' } } } },
    });
    expectOutage(await call(`${base}/legal/agb`), 'database');
    expectOutage(await login(base), 'database');

    await postgres.start();
    await eventually(async () => (await call(`${base}/health/ready`)).status === 200, {
      what: 'ready',
      intervalMs: RESTART_POLL_MS,
    });
    expect((await call(`${base}/legal/agb`)).status).toBe(200);
    expect((await login(base)).status).toBe(401);

    const logged = variableLines(lines, 'DATABASE_URL');
    expect(logged.map((line) => [line.level, line.dependency])).toEqual([
      ['error', 'database'],
      ['info', 'database'],
    ]);
    expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
    expect(api.exited).toBe(false);
  }, 120_000);

  it('worker: probes and metrics on WORKER_PORT, jobs paused while PostgreSQL is down', async () => {
    const redis = await PrivateRedis.stopped();
    await postgres.stop();
    const [port] = await freeLocalPorts(1);
    const base = `http://127.0.0.1:${port}`;
    const {
      process: worker,
      lines,
      config,
    } = await start(
      'worker',
      { redisUrl: redis.url(), databaseUrl: postgres.url('platform') },
      { WORKER_PORT: String(port) },
      `${base}/health/live`,
    );
    const checks = async () =>
      ((await call(`${base}/health/ready`)).body.details as { checks: Record<string, unknown> })
        .checks;
    try {
      expect(await call(`${base}/health/ready`)).toMatchObject({
        status: 503,
        body: { details: { checks: { database: { status: 'down' }, redis: { status: 'down' } } } },
      });
      // The worker serves its probes and metrics and nothing else.
      expect((await call(`${base}/notifications`)).status).toBe(404);
      await worker.waitForLine('job processing paused');

      await redis.start();
      await eventually(async () => ((await checks()).redis as { status: string }).status === 'up', {
        what: 'Redis up',
        intervalMs: RESTART_POLL_MS,
      });
      const queue = new Queue(QueueName.Deliveries, {
        connection: { url: redis.url() },
        prefix: config.redisPrefix,
      });
      try {
        const job = await queue.add(JobName.SendEmail, {
          to: 'ops@outage.example',
          subject: 'sent once PostgreSQL is back',
          text: 'queued while the worker was paused',
        });
        await postgres.start();
        const resumed = JSON.parse(await worker.waitForLine('job processing resumed')) as {
          time: string;
        };
        await eventually(
          async () => sink.messages.some((m) => m.subject === 'sent once PostgreSQL is back'),
          'the e-mail',
        );
        const processed = await queue.getJob(job.id!);
        // Taken only once processing resumed, not while PostgreSQL was down.
        expect(processed!.processedOn).toBeGreaterThanOrEqual(Date.parse(resumed.time));
        expect(await processed!.getState()).toBe('completed');
      } finally {
        await queue.close();
      }

      await eventually(async () => (await call(`${base}/health/ready`)).status === 200, {
        what: 'ready',
        intervalMs: RESTART_POLL_MS,
      });
      const metrics = (await call(`${base}/metrics`)).body.text as string;
      expect(metrics).toContain(
        'job_duration_seconds_count{queue="deliveries",job="email.send",outcome="completed"} 1',
      );
      expect(metrics).toContain('deliveries_total{channel="email",outcome="sent"} 1');
      expect(metrics).toContain('dependency_up{dependency="database"} 1');
      expect(metrics).toContain('dependency_up{dependency="redis"} 1');
      expect(metrics).toMatch(/queue_jobs\{queue="deliveries",state="waiting"\} 0/);

      for (const variable of ['DATABASE_URL', 'REDIS_URL']) {
        expect(variableLines(lines, variable).map((line) => line.level)).toEqual(['error', 'info']);
      }
      expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
      expect(worker.exited).toBe(false);
    } finally {
      await redis.stop();
    }
  }, 120_000);
});
