import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The deployables, built from the same sources as the bench. */
export const API_ENTRY = fileURLToPath(new URL('../../apps/api/main.js', import.meta.url));
export const WORKER_ENTRY = fileURLToPath(new URL('../../apps/worker/main.js', import.meta.url));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Log lines of one kind, and the first few distinct messages among them with how often each
 * came and when first (seconds after the process started).
 */
export interface LoggedLines {
  count: number;
  samples: Map<string, { count: number; firstAtS: number }>;
}

const MAX_SAMPLES = 10;

/**
 * A deployable as its own process (`node dist/.../main.js`), configured through the
 * environment as production runs it, ready once its `/health/ready` answers 200 on `port`.
 * Its JSON log lines are read: error and fatal lines are counted, and warnings apart.
 */
export class ServiceProcess {
  readonly errors: LoggedLines = { count: 0, samples: new Map() };
  readonly warnings: LoggedLines = { count: 0, samples: new Map() };

  private readonly startedAt = Date.now();

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.read(line));
  }

  static async start(
    name: string,
    entry: string,
    port: number,
    env: Record<string, string>,
  ): Promise<ServiceProcess> {
    const child = spawn(process.execPath, [entry], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const service = new ServiceProcess(name, child, `http://127.0.0.1:${port}`);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the ${name} exited with ${child.exitCode}`);
      try {
        if ((await fetch(`${service.url}/health/ready`)).ok) return service;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await service.stop();
        throw new Error(`the ${name} was not ready within 60 s`);
      }
      await sleep(200);
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resident memory in MiB (VmRSS), or NaN once the process is gone. */
  rssMiB(): number {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
    } catch {
      return NaN;
    }
  }

  /** CPU seconds (user + system, all threads) used so far; Linux counts in ticks of 10 ms. */
  cpuSeconds(): number {
    try {
      const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return NaN;
    }
  }

  /** A graceful stop (SIGTERM); killed if it has not ended 15 s later. */
  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.running) return resolve();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      this.child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.child.kill('SIGTERM');
    });
  }

  private read(line: string): void {
    if (line.includes('"level":"error"') || line.includes('"level":"fatal"'))
      this.record(this.errors, line);
    else if (line.includes('"level":"warn"')) this.record(this.warnings, line);
  }

  private record(lines: LoggedLines, line: string): void {
    lines.count += 1;
    let message = line;
    try {
      const entry = JSON.parse(line) as { message?: unknown; context?: unknown; err?: unknown };
      const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
      message = `${text(entry.context ?? '')}: ${text(entry.message ?? entry.err ?? line)}`;
    } catch {
      // not JSON: the line itself
    }
    message = message.slice(0, 300);
    const seen = lines.samples.get(message);
    if (seen) seen.count += 1;
    else if (lines.samples.size < MAX_SAMPLES)
      lines.samples.set(message, { count: 1, firstAtS: (Date.now() - this.startedAt) / 1000 });
  }
}

/**
 * The lowest resident memory of a process since the last `take()`, sampled every 5 s: what it
 * holds after its collections, where a single sample may catch garbage not yet collected.
 */
export class RssFloor {
  private lowest = Infinity;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly service: ServiceProcess) {
    this.timer = setInterval(() => this.sample(), 5000);
  }

  take(): number {
    this.sample();
    const lowest = this.lowest;
    this.lowest = Infinity;
    return lowest;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    this.lowest = Math.min(this.lowest, this.service.rssMiB());
  }
}
