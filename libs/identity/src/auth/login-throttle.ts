import { Inject, Injectable } from '@nestjs/common';
import { REDIS } from '@platform/queue';
import type { Redis } from 'ioredis';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';
import { sha256 } from './secrets.js';

export const MAX_LOGIN_FAILURES = 5;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

/**
 * Failed logins per login name, counted in Redis so every API replica sees the same count.
 * After five failures within 15 minutes further attempts answer 429 until the window ends.
 */
@Injectable()
export class LoginThrottle {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  private key(login: string): string {
    return `login-failures:${sha256(login.trim().toLowerCase())}`;
  }

  async assertAllowed(login: string): Promise<void> {
    const key = this.key(login);
    const failures = Number((await this.redis.get(key)) ?? 0);
    if (failures < MAX_LOGIN_FAILURES) return;
    const ttl = await this.redis.ttl(key);
    const retryAfter = ttl > 0 ? ttl : LOGIN_FAILURE_WINDOW_SECONDS;
    throw new IdentityException(
      IdentityErrorCode.TooManyAttempts,
      `Too many failed logins; try again in ${retryAfter} seconds`,
      { headers: { 'Retry-After': String(retryAfter) }, retryable: true },
    );
  }

  async recordFailure(login: string): Promise<void> {
    const key = this.key(login);
    const failures = await this.redis.incr(key);
    if (failures === 1) await this.redis.expire(key, LOGIN_FAILURE_WINDOW_SECONDS);
  }

  async reset(login: string): Promise<void> {
    await this.redis.del(this.key(login));
  }
}
