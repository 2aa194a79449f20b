import { createHash, randomUUID } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import {
  APP_CONFIG,
  type AppConfig,
  Clock,
  CoreErrorCode,
  CoreException,
  type RateLimitState,
  RequestContexts,
} from '@platform/core';
import { REDIS } from '@platform/queue';
import type { Redis } from 'ioredis';
import { addressKey } from './client-address.js';
import type { RateLimitRule } from './rate-limit-rules.js';

/** One rule applied to one key. */
export interface RateLimitCounter {
  rule: RateLimitRule;
  key: string;
}

/**
 * A sliding-window log per counter: one sorted set of event times (the clock's milliseconds).
 * All or nothing over the counters given: entries older than each window go; if any counter is
 * full, nothing is counted and the answer is the milliseconds until the fullest one has room, and which one it is;
 * else the event is added to every counter. Refused events are not counted, so a client that
 * waits as told gets in. KEYS: the counters; ARGV: now, event id, then limit and window (ms)
 * of each counter. Answers {wait, counter, remaining, reset}: the counter that refused (or the
 * tightest one after counting), the events it has room for and the milliseconds until its oldest
 * entry leaves the window.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local wait = 0
local fullest = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local freeing = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')[2]
    local until_free = tonumber(freeing) + window - now
    if until_free > wait then
      wait = until_free
      fullest = i
    end
  end
end
if wait > 0 then return {wait, fullest, 0, wait} end
local tightest, least, reset = 0, -1, 0
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZADD', key, now, ARGV[2])
  redis.call('PEXPIRE', key, window)
  local left = tonumber(ARGV[1 + 2 * i]) - redis.call('ZCARD', key)
  if least < 0 or left < least then
    least = left
    tightest = i
    reset = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) + window - now
  end
end
return {0, tightest, least, reset}`;

/**
 * Rate limits kept in Redis, so every API replica and worker counts together, on the injected
 * clock. `take` answers 429 `rate_limited` with `Retry-After`; `acquire` tells a background
 * sender how long to wait instead. Keys are digests: logins, addresses and numbers are not
 * stored in Redis as they are.
 */
@Injectable()
export class RateLimiter {
  private readonly exempt = new BlockList();

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    for (const network of config.rateLimitExemptNetworks) addNetwork(this.exempt, network);
  }

  /**
   * A counter for a client address (IPv6 by its /64, like the login throttle), or null when
   * there is no address or it is in RATE_LIMIT_EXEMPT_NETWORKS.
   */
  perAddress(rule: RateLimitRule, address: string | null | undefined): RateLimitCounter | null {
    if (!address) return null;
    const plain =
      address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
    const family = isIPv4(plain) ? 'ipv4' : isIPv6(plain) ? 'ipv6' : null;
    if (family && this.exempt.check(plain, family)) return null;
    return { rule, key: addressKey(address) };
  }

  /**
   * Counts one event on every counter, or refuses it with 429 and counts nothing. Either way the
   * tightest counter's state is left on the request, whose answer carries it as the RateLimit
   * headers.
   */
  async take(...counters: Array<RateLimitCounter | null>): Promise<void> {
    const applied = counters.filter((counter): counter is RateLimitCounter => counter !== null);
    const [waitMs, fullest, remaining, resetMs] = await this.count(applied);
    if (applied.length > 0) {
      noteRateLimit({
        limit: applied[fullest].rule.limit,
        remaining,
        resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
      });
    }
    if (waitMs === 0) return;
    const full = applied[fullest].rule;
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    throw new CoreException(
      CoreErrorCode.RateLimited,
      `Too many ${full.what}; try again in ${retryAfter} seconds`,
      {
        retryable: true,
        headers: { 'Retry-After': String(retryAfter) },
        details: { limit: full.limit, window_seconds: full.windowSeconds },
      },
    );
  }

  /** Counts one event on every counter and answers 0, or answers the milliseconds to wait. */
  async acquire(...counters: RateLimitCounter[]): Promise<number> {
    return (await this.count(counters))[0];
  }

  /**
   * The wait in milliseconds (0: counted), the index of the counter that is full (or the
   * tightest), its room left and the milliseconds until it frees one.
   */
  private async count(counters: RateLimitCounter[]): Promise<[number, number, number, number]> {
    if (counters.length === 0) return [0, 0, 0, 0];
    const keys = counters.map(({ rule, key }) => `rate-limit:${rule.name}:${digest(key)}`);
    const limits = counters.flatMap(({ rule }) => [rule.limit, rule.windowSeconds * 1000]);
    const [waitMs, fullest, remaining, resetMs] = (await this.redis.eval(
      TAKE,
      keys.length,
      ...keys,
      this.clock.nowMs(),
      randomUUID(),
      ...limits,
    )) as [number, number, number, number];
    return [waitMs, Math.max(0, fullest - 1), remaining, resetMs];
  }
}

/** The tighter of the request's counters so far, for its RateLimit headers. */
function noteRateLimit(state: RateLimitState): void {
  const context = RequestContexts.current();
  if (!context) return;
  if (!context.rateLimit || state.remaining < context.rateLimit.remaining)
    context.rateLimit = state;
}

function digest(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 32);
}

/** Adds an address or a CIDR range (validated by the configuration) to the list. */
export function addNetwork(list: BlockList, network: string): void {
  const [address, prefix] = network.split('/');
  const family = isIPv4(address) ? 'ipv4' : 'ipv6';
  if (prefix === undefined) list.addAddress(address, family);
  else list.addSubnet(address, Number(prefix), family);
}
