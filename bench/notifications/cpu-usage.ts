import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';

/** CPU seconds (user + system) of a process so far, from /proc; null where that is unavailable. */
function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export interface CpuSeconds {
  bench: number;
  workers: number;
  postgres: number;
  redis: number;
}

/**
 * Where the CPU time of a run goes: this process (the SMTP server thread included), the worker
 * processes, the PostgreSQL backends of the bench database (sampled every 500 ms, so backends
 * that come and go are counted too) and the Redis server (all of it: other clients count too).
 */
export class CpuMeter {
  private readonly baseline = new Map<number, number>();
  private readonly latest = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;
  private sampling: Promise<void> = Promise.resolve();
  /** The most connections to the bench database seen at one sample. */
  peakConnections = 0;

  private constructor(
    private readonly workerPids: number[],
    private readonly db: DataSource,
    private readonly redis: Redis,
    private readonly ownStart: NodeJS.CpuUsage,
    private readonly redisStart: number,
  ) {
    this.timer = setInterval(() => {
      this.sampling = this.sampleBackends(false);
    }, 500);
  }

  static async start(workerPids: number[], db: DataSource, redis: Redis): Promise<CpuMeter> {
    const meter = new CpuMeter(workerPids, db, redis, process.cpuUsage(), await redisCpu(redis));
    for (const pid of workerPids) meter.baseline.set(pid, processCpuSeconds(pid) ?? 0);
    await meter.sampleBackends(true);
    return meter;
  }

  async stop(): Promise<CpuSeconds> {
    clearInterval(this.timer);
    await this.sampling;
    await this.sampleBackends(false);
    const own = process.cpuUsage(this.ownStart);
    const used = (pid: number) => (this.latest.get(pid) ?? 0) - (this.baseline.get(pid) ?? 0);
    const workers = this.workerPids.reduce((a, pid) => a + (processCpuSeconds(pid) ?? 0), 0);
    const workerBase = this.workerPids.reduce((a, pid) => a + (this.baseline.get(pid) ?? 0), 0);
    let postgres = 0;
    for (const pid of this.latest.keys()) postgres += used(pid);
    return {
      bench: (own.user + own.system) / 1e6,
      workers: workers - workerBase,
      postgres,
      redis: (await redisCpu(this.redis)) - this.redisStart,
    };
  }

  static format(cpu: CpuSeconds): string {
    return (
      `CPU seconds in that time: worker processes ${cpu.workers.toFixed(1)}, ` +
      `PostgreSQL ${cpu.postgres.toFixed(1)}, Redis ${cpu.redis.toFixed(1)}, ` +
      `bench process with the SMTP server ${cpu.bench.toFixed(1)}`
    );
  }

  private async sampleBackends(initial: boolean): Promise<void> {
    const backends: Array<{ pid: number }> = await this.db.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
    );
    this.peakConnections = Math.max(this.peakConnections, backends.length);
    for (const { pid } of backends) {
      const seconds = processCpuSeconds(pid);
      if (seconds === null) continue;
      if (!this.baseline.has(pid)) this.baseline.set(pid, initial ? seconds : 0);
      this.latest.set(pid, seconds);
    }
  }
}

async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return ['used_cpu_sys', 'used_cpu_user']
    .map((key) => Number(new RegExp(`^${key}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0))
    .reduce((a, b) => a + b, 0);
}
