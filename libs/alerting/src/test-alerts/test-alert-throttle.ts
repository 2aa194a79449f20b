import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { REDIS } from '@platform/queue';
import type { Redis } from 'ioredis';
import { AlertingErrorCode, AlertingException } from '../alerting-exception.js';

export const TEST_ALERTS_PER_WINDOW = 6;
export const TEST_ALERT_WINDOW_MS = 60_000;

/**
 * A sliding window log in one sorted set per credential and project, scored by the clock's
 * milliseconds: entries older than the window go, a full window refuses (answering the oldest
 * entry's score, from which the wait follows), else the request is added. Refused requests are
 * not added, so a client that keeps retrying is let in as soon as the window allows.
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return false`;

/**
 * At most six test alerts per minute per credential and project, counted in Redis so every
 * API replica sees the same count; the seventh within a minute answers 429 `throttled` with
 * `Retry-After` in seconds.
 */
@Injectable()
export class TestAlertThrottle {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly clock: Clock,
  ) {}

  async take(projectId: string, credentialId: string): Promise<void> {
    const now = this.clock.nowMs();
    const oldest = (await this.redis.eval(
      TAKE,
      1,
      `test-alerts:throttle:${projectId}:${credentialId}`,
      now,
      TEST_ALERT_WINDOW_MS,
      TEST_ALERTS_PER_WINDOW,
      `${now}:${randomUUID()}`,
    )) as string | null;
    if (oldest === null) return;
    const retryAfter = Math.max(1, Math.ceil((Number(oldest) + TEST_ALERT_WINDOW_MS - now) / 1000));
    throw new AlertingException(
      AlertingErrorCode.Throttled,
      `At most ${TEST_ALERTS_PER_WINDOW} test alerts per minute; retry in ${retryAfter} seconds`,
      { retryable: true, headers: { 'Retry-After': String(retryAfter) } },
    );
  }
}
