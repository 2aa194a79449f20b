import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { AppConfig } from '@platform/core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * Lines of a process's output kept (for a failure's message, and as the start of `output`): the
 * API alone logs some 400 lines as it starts, one per route, so keep all of a start.
 */
const KEPT_LINES = 2000;

export type Deployable = 'api' | 'worker' | 'migrate' | 'backup-operator' | 'groupware-operator';

/** A build of the deployables in a folder of its own; `remove()` deletes it. */
export class DeployablesBuild {
  constructor(readonly folder: string) {}

  /** The entry point of a deployable, as `node <entry>` runs it in production. */
  entry(app: Deployable): string {
    return `${this.folder}/apps/${app}/main.js`;
  }

  async remove(): Promise<void> {
    await rm(this.folder, { recursive: true, force: true });
  }
}

/**
 * Compiles the deployables as `npm run build` does, into a new folder under `dist/` (inside the
 * repository, so their imports find node_modules): test files building at once never run each
 * other's half-written output.
 */
export function buildDeployables(): DeployablesBuild {
  const out = `dist/test-build-${randomBytes(6).toString('hex')}`;
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
  return new DeployablesBuild(`${ROOT}${out}`);
}

/** The environment production would give a deployable for this configuration. */
export function deployableEnv(config: AppConfig): Record<string, string> {
  return {
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
    // Several workers run side by side in tests: any free probe port.
    WORKER_PORT: '0',
    ...(config.metricsToken ? { METRICS_TOKEN: config.metricsToken } : {}),
    ...(config.platformAdmin
      ? {
          PLATFORM_ADMIN_LOGIN: config.platformAdmin.login,
          PLATFORM_ADMIN_PASSWORD: config.platformAdmin.password,
        }
      : {}),
    LOG_LEVEL: 'info',
  };
}

export interface DeployableOptions {
  /** Added to (or replacing) the configuration's variables. */
  env?: Record<string, string>;
  nodeArgs?: string[];
  /**
   * When the process counts as started: once it logged a line containing `logLine`, or once
   * `url` answers 200. Default: the worker's "worker started".
   */
  ready?: { logLine: string } | { url: string };
  /** How long it may take to start; 60 s unless said otherwise. */
  startTimeoutMs?: number;
}

/**
 * A deployable as its own process (`node .../apps/<app>/main.js`), configured through the
 * environment like production, on a test's database and Redis prefix. Its output (JSON log
 * lines and anything on stderr) is kept, the last lines of it, for the message of a failure.
 */
export class DeployableProcess {
  private readonly lines: string[] = [];
  private readonly watchers = new Set<(line: string) => void>();
  /** Settles once the process ended and its output was read to the end. */
  private readonly closed: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        this.lines.push(line);
        if (this.lines.length > KEPT_LINES) this.lines.shift();
        for (const watch of this.watchers) watch(line);
      });
    }
    this.closed = new Promise((resolve) => child.once('close', () => resolve()));
  }

  static async start(
    entry: string,
    config: AppConfig,
    options: DeployableOptions = {},
  ): Promise<DeployableProcess> {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry], {
      env: { ...process.env, ...deployableEnv(config), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const deployable = new DeployableProcess(child);
    try {
      await deployable.started(
        options.ready ?? { logLine: '"worker started"' },
        options.startTimeoutMs ?? 60_000,
      );
    } catch (error) {
      await deployable.kill();
      throw error;
    }
    return deployable;
  }

  /** Runs a deployable that ends by itself (`migrate`); resolves with its exit code. */
  static async run(
    entry: string,
    config: AppConfig,
    options: Pick<DeployableOptions, 'env' | 'nodeArgs'> = {},
  ): Promise<{ code: number | null; output: string[] }> {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry], {
      env: { ...process.env, ...deployableEnv(config), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const deployable = new DeployableProcess(child);
    await deployable.closed;
    return { code: child.exitCode, output: deployable.output };
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the process has ended. */
  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Its last lines of output, stdout and stderr as they came. */
  get output(): string[] {
    return [...this.lines];
  }

  /** Calls `listener` with every further line of output; answers how to stop listening. */
  onLine(listener: (line: string) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** Resolves with the first line (seen already or to come) that contains `text`. */
  waitForLine(text: string, timeoutMs = 30_000): Promise<string> {
    const seen = this.lines.find((line) => line.includes(text));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`no line with ${text} in ${timeoutMs} ms:\n${this.output.join('\n')}`));
      }, timeoutMs);
      const stop = this.onLine((line) => {
        if (!line.includes(text)) return;
        clearTimeout(timer);
        stop();
        resolve(line);
      });
    });
  }

  /** Sends `signal` without waiting for the process to end. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Resolves with how the process ended, once it has. */
  async ended(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    await this.closed;
    return { code: this.child.exitCode, signal: this.child.signalCode };
  }

  /** Ends the process at once, mid-job, as a crash or an OOM kill would. */
  async kill(): Promise<void> {
    await this.stopWith('SIGKILL');
  }

  /** A graceful stop, as an orchestrator ends a deployment. */
  async stop(): Promise<void> {
    await this.stopWith('SIGTERM');
  }

  private async stopWith(signal: NodeJS.Signals): Promise<void> {
    if (this.exited) return;
    // A graceful stop that hangs still ends: a deployment would kill it too.
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    this.child.kill(signal);
    await this.closed;
    clearTimeout(timer);
  }

  /** Resolves once `ready` holds; rejects (with the output) on a fatal log line, exit or time-out. */
  private started(ready: { logLine: string } | { url: string }, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (why?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.watchers.delete(watch);
        if (!why) return resolve();
        const output = this.output.join('\n');
        reject(new Error(`${this.child.spawnargs.at(-1)} ${why} before it was ready:\n${output}`));
      };
      const timer = setTimeout(() => finish(`did not start in ${timeoutMs / 1000} s`), timeoutMs);
      const watch = (line: string) => {
        if (line.includes('"level":"fatal"')) finish('logged a fatal error');
        else if ('logLine' in ready && line.includes(ready.logLine)) finish();
      };
      this.watchers.add(watch);
      void this.closed.then(() =>
        finish(`exited (${this.child.exitCode ?? this.child.signalCode})`),
      );
      if ('url' in ready) {
        void (async () => {
          while (!settled) {
            if (await answers(ready.url)) finish();
            else await new Promise((wake) => setTimeout(wake, 50));
          }
        })();
      }
    });
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}
