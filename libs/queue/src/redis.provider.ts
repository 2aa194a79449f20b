import type { Provider } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, Dependencies, tagSocketError } from '@platform/core';
import { Redis, type RedisOptions } from 'ioredis';
import { watchServerRun } from './redis-server-run.js';

/** A general-purpose Redis client whose keys all live under the configured prefix. */
export const REDIS = Symbol('REDIS');
/** The connection the BullMQ queues of this process share to add jobs and read counts. */
export const QUEUE_REDIS = Symbol('QUEUE_REDIS');

/** A command waits at most this long for an answer (then fails: 503 for a request). */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;

const lastErrors = new WeakMap<Redis, string>();

/** Why `redis` is not connected, as its last connection error said ("no connection" if none). */
export function connectionProblem(redis: Redis): string {
  return lastErrors.get(redis) ?? 'no connection';
}

/** Whether `redis` has had a connection error (so it no longer queues commands). */
export function hasFailed(redis: Redis): boolean {
  return lastErrors.has(redis);
}

/** Reconnection delay after the n-th failed attempt: 100 ms growing to 2 s, forever. */
export function redisRetryDelay(attempt: number): number {
  return Math.min(attempt * 100, 2000);
}

/**
 * A Redis connection that reports to Dependencies instead of logging every reconnect, and that
 * fails fast during an outage: until its first connection attempt is over, commands wait in
 * ioredis' offline queue (so start-up races nothing); afterwards a command sent while it is
 * disconnected fails at once, and any command fails after REDIS_COMMAND_TIMEOUT_MS. Requests
 * get their 503 within seconds, never hang.
 */
export function monitoredRedis(
  config: AppConfig,
  dependencies: Dependencies,
  options: RedisOptions = {},
): Redis {
  const redis = new Redis(config.redisUrl, {
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: redisRetryDelay,
    ...options,
  });
  redis.on('error', (error: Error) => {
    lastErrors.set(redis, error.message);
    redis.options.enableOfflineQueue = false;
    dependencies.reportFailure('redis', tagSocketError(error, 'redis'));
  });
  redis.on('ready', () => {
    redis.options.enableOfflineQueue = false;
    dependencies.reportSuccess('redis');
  });
  return redis;
}

export const redisProvider: Provider = {
  provide: REDIS,
  inject: [APP_CONFIG, Dependencies],
  useFactory: (config: AppConfig, dependencies: Dependencies) => {
    const redis = monitoredRedis(config, dependencies, { keyPrefix: `${config.redisPrefix}:` });
    // One client per process is enough to notice a restart; this one reconnects forever.
    watchServerRun(redis, dependencies);
    return redis;
  },
};

export const queueRedisProvider: Provider = {
  provide: QUEUE_REDIS,
  inject: [APP_CONFIG, Dependencies],
  useFactory: (config: AppConfig, dependencies: Dependencies) =>
    monitoredRedis(config, dependencies, { connectionName: 'queues' }),
};
