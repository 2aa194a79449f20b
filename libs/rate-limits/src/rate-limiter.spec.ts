import { afterAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@platform/core';
import { deleteRedisPrefix, FakeClock, redisUrl, uniqueRedisPrefix } from '@platform/testing';
import { Redis } from 'ioredis';
import type { RateLimitRule } from './rate-limit-rules.js';
import { RateLimiter } from './rate-limiter.js';

const prefix = uniqueRedisPrefix();
const redis = new Redis(redisUrl(), { keyPrefix: `${prefix}:` });
const clock = new FakeClock('2026-03-10T07:00:00Z');

function limiter(exempt: string[] = []): RateLimiter {
  return new RateLimiter(redis, clock, { ...loadConfig({}), rateLimitExemptNetworks: exempt });
}

const rule = (name: string, limit: number, windowSeconds: number): RateLimitRule => ({
  name,
  limit,
  windowSeconds,
  what: name,
});

afterAll(async () => {
  await deleteRedisPrefix(prefix);
  redis.disconnect();
});

describe('RateLimiter (on Redis)', () => {
  it('slides its window: room comes back as each event gets older than the window', async () => {
    const limits = limiter();
    const threePerMinute = rule('slide', 3, 60);
    const counter = { rule: threePerMinute, key: 'k' };
    expect(await limits.acquire(counter)).toBe(0);
    clock.advance({ seconds: 10 });
    expect(await limits.acquire(counter)).toBe(0);
    expect(await limits.acquire(counter)).toBe(0);
    // Full: the first event leaves the window 50 s from now.
    expect(await limits.acquire(counter)).toBe(50_000);
    clock.advance({ seconds: 50 });
    expect(await limits.acquire(counter)).toBe(0);
    // The two events of second 10 leave together, 10 s later.
    expect(await limits.acquire(counter)).toBe(10_000);
  });

  it('counts on every counter or on none', async () => {
    const limits = limiter();
    const tight = { rule: rule('tight', 1, 60), key: 'a' };
    const loose = { rule: rule('loose', 5, 60), key: 'a' };
    expect(await limits.acquire(tight, loose)).toBe(0);
    expect(await limits.acquire(tight, loose)).toBe(60_000);
    expect(await limits.acquire(tight, loose)).toBe(60_000);
    // The refusals were not counted on the loose counter: four more fit.
    for (let n = 0; n < 4; n++) expect(await limits.acquire(loose)).toBe(0);
    expect(await limits.acquire(loose)).toBeGreaterThan(0);
  });

  it('answers 429 rate_limited naming the full limit, with Retry-After in whole seconds', async () => {
    const limits = limiter();
    const roomy = { rule: rule('roomy', 10, 3600), key: 'x' };
    const full = { rule: rule('full', 1, 90), key: 'x' };
    await limits.take(roomy, full);
    clock.advance({ ms: 500 });
    const refused = await limits.take(roomy, full).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      status: 429,
      code: 'rate_limited',
      retryable: true,
      headers: { 'Retry-After': '90' },
      details: { limit: 1, window_seconds: 90 },
    });
  });

  it('counts an address, its IPv4-mapped form as the same, and IPv6 by its /64', () => {
    const limits = limiter(['10.0.0.0/8', '2001:db8:ff::/48']);
    const r = rule('addr', 1, 60);
    expect(limits.perAddress(r, '198.51.100.7')).toEqual({ rule: r, key: '198.51.100.7' });
    expect(limits.perAddress(r, '::ffff:198.51.100.7')).toEqual({ rule: r, key: '198.51.100.7' });
    expect(limits.perAddress(r, '2001:db8:1:2:aaaa::1')?.key).toBe('2001:db8:1:2::/64');
    expect(limits.perAddress(r, '2001:db8:1:2::9')?.key).toBe('2001:db8:1:2::/64');
    // RATE_LIMIT_EXEMPT_NETWORKS, and no address at all, are not counted.
    expect(limits.perAddress(r, '10.1.2.3')).toBeNull();
    expect(limits.perAddress(r, '::ffff:10.1.2.3')).toBeNull();
    expect(limits.perAddress(r, '2001:db8:ff:1::1')).toBeNull();
    expect(limits.perAddress(r, null)).toBeNull();
  });
});
