import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { AppConfig } from '@platform/core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OUT = 'dist/test-worker';

/** Compiles the deployables as `npm run build` does, into a folder of the tests' own. */
export function buildWorker(): string {
  execFileSync(
    `${ROOT}node_modules/.bin/swc`,
    [
      'apps',
      'libs',
      '-d',
      OUT,
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
  return `${ROOT}${OUT}/apps/worker/main.js`;
}

/**
 * The worker deployable as its own process (`node .../apps/worker/main.js`), configured through
 * the environment like production, on a test app's database and Redis prefix.
 */
export class WorkerProcess {
  private constructor(private readonly child: ChildProcess) {}

  static async start(entry: string, config: AppConfig): Promise<WorkerProcess> {
    const child = spawn(process.execPath, [entry], {
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
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const worker = new WorkerProcess(child);
    await new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      const timer = setTimeout(() => reject(new Error('worker did not start in 30 s')), 30_000);
      lines.on('line', (line) => {
        if (line.includes('worker started')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`worker exited before starting (${code ?? signal})`));
      });
    });
    return worker;
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
      this.child.once('exit', () => resolve());
      this.child.kill(signal);
    });
  }
}
