import { describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const KUBE_OPTIONS = {
  clusters: [{ name: 'test', server: 'https://127.0.0.1:6443', skipTLSVerify: true }],
  users: [{ name: 'test', token: 'not-a-real-token' }],
  contexts: [{ name: 'test', cluster: 'test', user: 'test' }],
  currentContext: 'test',
};

@Injectable()
class Greeter {
  greet(): string {
    return 'hello from nest';
  }
}

@Module({ providers: [Greeter] })
class GreeterModule {}

/**
 * NestJS 12 and @kubernetes/client-node 2 ship ES modules only. The project is ES modules
 * throughout; this proves both load and work under jest and under plain Node alike.
 */
describe('ES module setup', () => {
  it('declares the package as ES modules', async () => {
    const pkg = JSON.parse(await readFile(`${ROOT}/package.json`, 'utf8')) as { type?: string };
    expect(pkg.type).toBe('module');
  });

  it('runs NestJS 12 and @kubernetes/client-node 2 under jest', async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions(KUBE_OPTIONS);
    expect(kubeConfig.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(kubeConfig.makeApiClient(CoreV1Api)).toBeInstanceOf(CoreV1Api);

    const app = await NestFactory.createApplicationContext(GreeterModule, { logger: false });
    try {
      expect(app.get(Greeter).greet()).toBe('hello from nest');
    } finally {
      await app.close();
    }
  });

  it('loads the same packages under plain Node', async () => {
    const script = `
      import { KubeConfig, CoreV1Api } from '@kubernetes/client-node';
      import { NestFactory } from '@nestjs/core';
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromOptions(${JSON.stringify(KUBE_OPTIONS)});
      const api = kubeConfig.makeApiClient(CoreV1Api);
      process.stdout.write(JSON.stringify({
        server: kubeConfig.getCurrentCluster().server,
        api: api instanceof CoreV1Api,
        nest: typeof NestFactory.create,
      }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
    });
    expect(JSON.parse(stdout)).toEqual({
      server: 'https://127.0.0.1:6443',
      api: true,
      nest: 'function',
    });
  });
});
