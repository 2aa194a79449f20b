import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export function redisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** A key prefix of its own for each test app; every key under it is deleted afterwards. */
export function uniqueRedisPrefix(): string {
  return `test-${randomBytes(6).toString('hex')}`;
}

export async function deleteRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(redisUrl());
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
