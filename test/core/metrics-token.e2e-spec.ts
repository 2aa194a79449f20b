import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type AppConfig, ProbesModule } from '@platform/core';
import { OperatorModule } from '@platform/kube';
import {
  createTestDatabase,
  deleteRedisPrefix,
  type TestApp,
  type TestDatabase,
  testConfig,
} from '@platform/testing';
import { WorkerModule } from '../../apps/worker/worker.module.js';
import { createApiTestApp } from '../support/api-app.js';

const TOKEN = 'scrape-Hk3vQ9mZp2Lr7tXw';

interface Scrape {
  status: number;
  authenticate: string | null;
  contentType: string | null;
  text: string;
}

async function scrape(baseUrl: string, authorization?: string): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`, {
    headers: authorization ? { Authorization: authorization } : {},
    signal: AbortSignal.timeout(5000),
  });
  return {
    status: response.status,
    authenticate: response.headers.get('www-authenticate'),
    contentType: response.headers.get('content-type'),
    text: await response.text(),
  };
}

/** The error envelope of a refused scrape, as every process answers it. */
function refusal(message: string, operation: string, requestId: unknown) {
  return {
    code: 'unauthorized',
    message,
    source_service: 'api',
    source_operation: operation,
    retryable: false,
    request_id: requestId,
  };
}

const MISSING = 'The metrics need an Authorization: Bearer header with METRICS_TOKEN';
const WRONG = 'The metrics bearer token is not METRICS_TOKEN';

/**
 * Asserts what `/metrics` of a process answers with METRICS_TOKEN set: 401 and the envelope
 * without the token or with another one, the Prometheus text with it.
 */
async function expectGuarded(
  baseUrl: string,
  operation: string,
  metric: RegExp,
  requestId: unknown = '',
): Promise<void> {
  const missing = await scrape(baseUrl);
  expect(missing).toMatchObject({ status: 401, authenticate: 'Bearer' });
  expect(JSON.parse(missing.text)).toEqual(refusal(MISSING, operation, requestId));

  for (const header of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`]) {
    const wrong = await scrape(baseUrl, header);
    expect([header, wrong.status, wrong.authenticate]).toEqual([header, 401, 'Bearer']);
    expect(JSON.parse(wrong.text)).toEqual(
      refusal(header.startsWith('Basic') ? MISSING : WRONG, operation, requestId),
    );
  }

  const allowed = await scrape(baseUrl, `Bearer ${TOKEN}`);
  expect(allowed.status).toBe(200);
  expect(allowed.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  expect(allowed.text).toMatch(metric);
  expect(allowed.text).not.toContain(TOKEN);
}

async function listen(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

describe('/metrics behind METRICS_TOKEN', () => {
  describe('API', () => {
    let guarded: TestApp;
    let open: TestApp;

    beforeAll(async () => {
      guarded = await createApiTestApp({ config: { metricsToken: TOKEN }, listen: true });
      open = await createApiTestApp({ listen: true });
    });

    afterAll(async () => {
      await guarded?.close();
      await open?.close();
    });

    it('answers only the bearer of the token', async () => {
      await expectGuarded(
        guarded.baseUrl!,
        'metrics.scrape',
        /^http_requests_total\{method="GET",route="\/metrics",status="401"\} 4$/m,
        expect.stringMatching(/\S/),
      );
    });

    it('stays public without one', async () => {
      const res = await scrape(open.baseUrl!);
      expect(res.status).toBe(200);
      expect(res.authenticate).toBeNull();
      expect(res.text).toMatch(/^# TYPE http_requests_total counter$/m);
    });
  });

  describe('worker probe port and operator', () => {
    let database: TestDatabase;
    const started: Array<INestApplicationContext> = [];
    const prefixes: string[] = [];

    beforeAll(async () => {
      database = await createTestDatabase();
    });

    afterAll(async () => {
      for (const app of started.reverse()) await app.close();
      for (const prefix of prefixes) await deleteRedisPrefix(prefix);
      await database?.drop();
    });

    /** The worker as its main.ts wires it: its jobs' context, the probes served over it. */
    async function startWorker(config: AppConfig): Promise<string> {
      prefixes.push(config.redisPrefix);
      const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
        logger: false,
      });
      started.push(worker);
      const probes = await NestFactory.create(ProbesModule.serving(worker), {
        logger: false,
        bodyParser: false,
      });
      started.push(probes);
      return listen(probes);
    }

    async function startOperator(config: AppConfig): Promise<string> {
      const operator = await NestFactory.create(OperatorModule.forRoot(config), { logger: false });
      started.push(operator);
      return listen(operator);
    }

    it('the worker answers only the bearer of the token', async () => {
      const baseUrl = await startWorker(testConfig(database, { metricsToken: TOKEN }));
      await expectGuarded(baseUrl, 'GET /metrics', /^# TYPE queue_jobs gauge$/m);
      // The other probes stay open to the orchestrator.
      expect((await fetch(`${baseUrl}/health/live`)).status).toBe(200);
    });

    it('an operator answers only the bearer of the token', async () => {
      const baseUrl = await startOperator(testConfig(database, { metricsToken: TOKEN }));
      await expectGuarded(baseUrl, 'GET /metrics', /^# TYPE process_cpu_seconds_total counter$/m);
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    });

    it('both stay public without one', async () => {
      for (const baseUrl of [
        await startWorker(testConfig(database)),
        await startOperator(testConfig(database)),
      ]) {
        const res = await scrape(baseUrl);
        expect([baseUrl, res.status, res.authenticate]).toEqual([baseUrl, 200, null]);
        expect(res.text).toMatch(/^# TYPE process_cpu_seconds_total counter$/m);
      }
    });
  });
});
