import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(`${ROOT}${file}`, 'utf8');

interface Service {
  environment?: Record<string, string>;
  command?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  ports?: string[];
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  'x-app': { environment: Record<string, string> };
  services: Record<string, Service>;
};
const APPS = ['migrate', 'api', 'worker'];

/** `${SECRET_KEY:?message}`: compose stops with the message when it is unset or empty. */
const REQUIRED_SECRET_KEY = /^\$\{SECRET_KEY:\?([^}]+)\}$/;

/** The script of a `[CMD, node, -e, script]` health check. */
function nodeHealthScript(service: string): string {
  const test = compose.services[service].healthcheck?.test ?? [];
  expect(test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
  expect(test).toHaveLength(4);
  return test[3];
}

/** Runs a health-check script against a local server answering `status`; its exit code. */
async function exitCodeAgainst(script: string, port: number, status: number): Promise<number> {
  const server: Server = createServer((_request, response) => {
    response.statusCode = status;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: local } = server.address() as AddressInfo;
  try {
    const rewritten = script.replace(`127.0.0.1:${port}/`, `127.0.0.1:${local}/`);
    expect(rewritten).not.toBe(script);
    return await new Promise<number>((resolve) => {
      execFile(process.execPath, ['-e', rewritten], { timeout: 10_000 }, (error) =>
        resolve(error ? Number((error as { code?: unknown }).code ?? -1) : 0),
      );
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('docker-compose.yml', () => {
  it('refuses to start without SECRET_KEY, telling how to make one', () => {
    const shared = compose['x-app'].environment;
    const message = REQUIRED_SECRET_KEY.exec(shared.SECRET_KEY)?.[1];
    expect(message).toBe(
      'set SECRET_KEY, e.g. SECRET_KEY=$$(openssl rand -hex 32) docker compose up',
    );
    for (const service of APPS) {
      expect([service, compose.services[service].environment?.SECRET_KEY]).toEqual([
        service,
        shared.SECRET_KEY,
      ]);
    }
    // Nowhere a default that would let it start with an empty or known key.
    expect(read('docker-compose.yml')).not.toMatch(/SECRET_KEY:-|SECRET_KEY-/);
  });

  it('runs the apps in production mode, with METRICS_TOKEN passed through', () => {
    for (const service of APPS) {
      expect([service, compose.services[service].environment]).toEqual([
        service,
        expect.objectContaining({
          NODE_ENV: '${NODE_ENV:-production}',
          METRICS_TOKEN: '${METRICS_TOKEN:-}',
        }),
      ]);
    }
  });

  it('checks the api on its port 3000 and the worker on its probe port 3001', () => {
    expect(compose.services.api.ports).toEqual(['3000:3000']);
    expect(nodeHealthScript('api')).toContain("fetch('http://127.0.0.1:3000/health/live')");
    // The worker serves its probes on WORKER_PORT, 3001 unless compose sets another.
    expect(compose.services.worker.environment).not.toHaveProperty('WORKER_PORT');
    expect(compose.services.worker.healthcheck?.disable).toBeUndefined();
    expect(nodeHealthScript('worker')).toContain("fetch('http://127.0.0.1:3001/health/live')");
    expect(compose.services.migrate.healthcheck).toEqual({ disable: true });
  });

  it('health checks run with the node of the image, which has no curl or wget', async () => {
    const dockerfile = read('Dockerfile');
    // compose builds the last stage: the API image, on Node 22 LTS.
    const stages = [...dockerfile.matchAll(/^FROM (\S+)(?: AS (\S+))?$/gm)];
    expect(stages.at(-1)!.slice(1)).toEqual(['node:22-bookworm-slim', 'api']);
    expect(dockerfile).toMatch(/^HEALTHCHECK .* CMD node -e "fetch\(/m);
    for (const [service, port] of [
      ['api', 3000],
      ['worker', 3001],
    ] as const) {
      const script = nodeHealthScript(service);
      expect([service, await exitCodeAgainst(script, port, 200)]).toEqual([service, 0]);
      expect([service, await exitCodeAgainst(script, port, 503)]).toEqual([service, 1]);
    }
  });
});
