import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { AppConfig } from '@platform/core';
import { DeployableProcess } from '@platform/testing';

/** The worker deployable, built from the same sources as the bench. */
export const WORKER_ENTRY = fileURLToPath(new URL('../../apps/worker/main.js', import.meta.url));

/**
 * Worker processes started as production starts the worker (`node dist/apps/worker/main.js`,
 * configured through the environment only), on the bench's database and Redis prefix.
 */
export class WorkerProcesses {
  private constructor(private readonly workers: DeployableProcess[]) {}

  static async start(
    count: number,
    config: AppConfig,
    env: Record<string, string> = {},
  ): Promise<WorkerProcesses> {
    const options = {
      env: { NODE_ENV: 'production', SECRET_KEY: randomBytes(32).toString('hex'), ...env },
      // e.g. BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" to profile the workers.
      nodeArgs: (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean),
    };
    const results = await Promise.allSettled(
      Array.from({ length: count }, () => DeployableProcess.start(WORKER_ENTRY, config, options)),
    );
    const workers = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) {
      await Promise.all(workers.map((worker) => worker.stop()));
      throw failed.reason;
    }
    return new WorkerProcesses(workers);
  }

  get pids(): number[] {
    return this.workers.map((worker) => worker.pid).filter((pid) => pid !== undefined);
  }

  /** Graceful stop (SIGTERM), as an orchestrator ends a deployment. */
  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop()));
  }
}
