import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { AppConfig } from '@platform/core';

/** The worker deployable, built from the same sources as the bench. */
export const WORKER_ENTRY = fileURLToPath(new URL('../../apps/worker/main.js', import.meta.url));

/**
 * Worker processes started as production starts the worker (`node dist/apps/worker/main.js`,
 * configured through the environment only), on the bench's database and Redis prefix.
 */
export class WorkerProcesses {
  private constructor(private readonly children: ChildProcess[]) {}

  static async start(
    count: number,
    config: AppConfig,
    env: Record<string, string> = {},
  ): Promise<WorkerProcesses> {
    const secret = randomBytes(32).toString('hex');
    // e.g. BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" to profile the workers.
    const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const children: ChildProcess[] = [];
    const started = new WorkerProcesses(children);
    try {
      await Promise.all(
        Array.from({ length: count }, () => {
          const child = spawn(process.execPath, [...nodeArgs, WORKER_ENTRY], {
            env: {
              ...process.env,
              NODE_ENV: 'production',
              SECRET_KEY: secret,
              DATABASE_URL: config.databaseUrl,
              REDIS_URL: config.redisUrl,
              REDIS_PREFIX: config.redisPrefix,
              SMTP_URL: config.smtpUrl ?? '',
              MAIL_FROM: config.mailFrom,
              LOG_LEVEL: 'info',
              ...env,
            },
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          children.push(child);
          return ready(child);
        }),
      );
    } catch (error) {
      await started.stop();
      throw error;
    }
    return started;
  }

  get pids(): number[] {
    return this.children.map((child) => child.pid!).filter(Boolean);
  }

  /** Graceful stop (SIGTERM), as an orchestrator ends a deployment. */
  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  }
}

/** Resolves once the worker logged that it started; its log lines are read and dropped. */
function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error('worker did not start in 60 s')), 60_000);
    lines.on('line', (line) => {
      if (line.includes('"worker started"')) {
        clearTimeout(timer);
        resolve();
      } else if (line.includes('"level":"fatal"') || line.includes('"level":60')) {
        clearTimeout(timer);
        reject(new Error(`worker failed to start: ${line}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before it started`));
    });
  });
}
