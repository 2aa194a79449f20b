import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { AppConfig } from '@platform/core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OUT = 'dist/test-worker';

/**
 * Compiles the deployables as `npm run build` does, into a folder of this process's own: test
 * files running side by side each build theirs, and none reads a file another is writing. The
 * folder goes when the process exits.
 */
export function buildWorker(): string {
  const out = `${OUT}/${process.pid}`;
  rmSync(`${ROOT}${out}`, { recursive: true, force: true });
  process.once('exit', () => rmSync(`${ROOT}${out}`, { recursive: true, force: true }));
  execFileSync(
    `${ROOT}node_modules/.bin/swc`,
    [
      'apps',
      'libs',
      '-d',
      out,
      '--config-file',
      '.swcrc',
      '--ignore',
      '**/*.spec.ts',
      '--ignore',
      'libs/testing/**',
      '--quiet',
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  return `${ROOT}${out}/apps/worker/main.js`;
}

/**
 * The worker deployable as its own process (`node .../apps/worker/main.js`), configured through
 * the environment like production, on a test app's database and Redis prefix.
 */
export class WorkerProcess {
  private constructor(private readonly child: ChildProcess) {}

  static async start(
    entry: string,
    config: AppConfig,
    options: { env?: Record<string, string>; nodeArgs?: string[] } = {},
  ): Promise<WorkerProcess> {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        SECRET_KEY: config.secretKey,
        DATABASE_URL: config.databaseUrl,
        REDIS_URL: config.redisUrl,
        REDIS_PREFIX: config.redisPrefix,
        SMTP_URL: config.smtpUrl ?? '',
        MAIL_FROM: config.mailFrom,
        DIGEST_FLUSH_INTERVAL_SECONDS: String(config.digestFlushIntervalSeconds),
        ESCALATION_SWEEP_INTERVAL_MS: String(config.escalationSweepIntervalMs),
        ALERT_DISPATCH_SWEEP_INTERVAL_MS: String(config.alertDispatchSweepIntervalMs),
        OUTBOUND_ALLOW_PRIVATE_NETWORKS: String(config.outboundAllowPrivateNetworks),
        LOG_LEVEL: 'info',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const worker = new WorkerProcess(child);
    try {
      await started(child);
    } catch (error) {
      await worker.kill();
      throw error;
    }
    return worker;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Ends the process at once, mid-job, as a crash or an OOM kill would. */
  async kill(): Promise<void> {
    await this.stopWith('SIGKILL');
  }

  /** A graceful stop, as an orchestrator ends a deployment. */
  async stop(): Promise<void> {
    await this.stopWith('SIGTERM');
  }

  private stopWith(signal: NodeJS.Signals): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      // A graceful stop that hangs still ends: a deployment would kill it too.
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      this.child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.child.kill(signal);
    });
  }
}

/** Resolves once the worker logged that it started; its later log lines are read and dropped. */
function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error('worker did not start in 60 s')), 60_000);
    lines.on('line', (line) => {
      if (line.includes('"worker started"')) {
        clearTimeout(timer);
        resolve();
      } else if (line.includes('"level":"fatal"')) {
        clearTimeout(timer);
        reject(new Error(`worker failed to start: ${line}`));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`worker exited before it started (${code ?? signal})`));
    });
  });
}
