import { Logger } from '@nestjs/common';
import type { Dependencies } from '@platform/core';
import type { Redis } from 'ioredis';

/** The `run_id` of an `INFO server` answer: random for each start of a Redis server. */
export function redisRunId(info: string): string | null {
  return /^run_id:(\w+)\r?$/m.exec(info)?.[1] ?? null;
}

/**
 * Reports to Dependencies which Redis server run `redis` reaches each time it is ready, so a
 * restart too short to be taken for an outage (the client reconnected before any connection
 * was refused) is noticed all the same: a Redis that keeps nothing on disk comes back empty. A
 * failed INFO waits for the next ready; a refused one (an ACL without INFO) is logged once,
 * since such restarts then go unnoticed.
 */
export function watchServerRun(redis: Redis, dependencies: Dependencies): void {
  let refusalLogged = false;
  redis.on('ready', () => {
    redis.info('server').then(
      (info) => {
        const runId = redisRunId(info);
        if (runId) dependencies.reportServerRun('redis', runId);
      },
      (error: Error) => {
        if (error.name !== 'ReplyError' || refusalLogged) return;
        refusalLogged = true;
        new Logger('dependencies').warn(
          `Redis refuses INFO (${error.message}): a restart shorter than an outage goes unnoticed`,
        );
      },
    );
  });
}
