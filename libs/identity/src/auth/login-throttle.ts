import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { REDIS } from '@platform/queue';
import { addressKey } from '@platform/rate-limits';
import type { Redis } from 'ioredis';
import { loginKey } from '../accounts/login-key.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';
import { sha256 } from './secrets.js';

export const MAX_LOGIN_FAILURES = 5;
export const MAX_ADDRESS_FAILURES = 20;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

/**
 * One hash per counter: `count` failures in the window that ends at `reset_at` (the clock's
 * milliseconds). Takes an attempt atomically: refuses when any counter is full (answering the
 * milliseconds until it empties), else counts the attempt on every counter, starting a window
 * where the last one is over. So concurrent attempts cannot all pass a check made before any
 * of them counted. Answers {wait, filled}: `filled` is 1 when this attempt made the first
 * counter (the login's) full, so exactly one of concurrent attempts learns that it locked the
 * login. KEYS: the counters; ARGV: now, window, then each counter's limit.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local wait = 0
for i, key in ipairs(KEYS) do
  local reset = tonumber(redis.call('HGET', key, 'reset_at') or '0')
  local count = tonumber(redis.call('HGET', key, 'count') or '0')
  if reset > now and count >= tonumber(ARGV[2 + i]) then wait = math.max(wait, reset - now) end
end
if wait > 0 then return {wait, 0} end
local filled = 0
for i, key in ipairs(KEYS) do
  local reset = tonumber(redis.call('HGET', key, 'reset_at') or '0')
  local count = 1
  if reset > now then
    count = redis.call('HINCRBY', key, 'count', 1)
  else
    redis.call('HSET', key, 'count', 1, 'reset_at', now + window)
    redis.call('PEXPIRE', key, window)
  end
  if i == 1 and count == tonumber(ARGV[3]) then filled = 1 end
end
return {0, filled}`;

/** Takes back a counted attempt (one that turned out not to be a failure). */
const GIVE_BACK = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('HGET', key, 'count') or '0') > 0 then
    redis.call('HINCRBY', key, 'count', -1)
  end
end
return 0`;

/** What became of an attempt that `take` let through. */
export interface LoginAttempt {
  /**
   * This attempt filled the login's counter: if it fails, the login is locked until the window
   * ends. Only one attempt of a window is told so, however many run at once.
   */
  readonly fillsLoginCounter: boolean;
  /** The password was right: the login's failures are forgiven, the address's attempt undone. */
  succeeded(): Promise<void>;
  /** Nothing was decided (the check itself failed): the attempt is given back everywhere. */
  abandoned(): Promise<void>;
}

/**
 * Password guesses, counted in Redis so every API replica sees the same counts, and counted
 * before the password is checked, so concurrent guesses count too. Two counters, each over a
 * 15-minute window from its first failure: the normalized login (loginKey, so `İDA@…` and
 * `ida@…` share one), at most 5 failures; and the client address (see client-address.ts),
 * at most 20 failures across all logins. A full counter answers 429 `too_many_attempts` with
 * `Retry-After` until its window ends. Windows follow the injected clock.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts an attempt for `login` (and `address`, when the caller has one) or refuses it.
   * Every attempt that passes is a failure unless the caller reports otherwise.
   */
  async take(login: string, address: string | null): Promise<LoginAttempt> {
    const loginCounter = `login-failures:login:${sha256(loginKey(login))}`;
    const counters = address
      ? [loginCounter, `login-failures:address:${addressKey(address)}`]
      : [loginCounter];
    const limits = address ? [MAX_LOGIN_FAILURES, MAX_ADDRESS_FAILURES] : [MAX_LOGIN_FAILURES];
    const [wait, filled] = (await this.redis.eval(
      TAKE,
      counters.length,
      ...counters,
      this.clock.nowMs(),
      LOGIN_FAILURE_WINDOW_SECONDS * 1000,
      ...limits,
    )) as [number, number];
    if (wait > 0) {
      const retryAfter = Math.max(1, Math.ceil(wait / 1000));
      throw new IdentityException(
        IdentityErrorCode.TooManyAttempts,
        `Too many failed logins; try again in ${retryAfter} seconds`,
        { headers: { 'Retry-After': String(retryAfter) }, retryable: true },
      );
    }
    return {
      fillsLoginCounter: filled === 1,
      succeeded: async () => {
        await this.redis.del(loginCounter);
        if (counters.length > 1) await this.redis.eval(GIVE_BACK, 1, counters[1]);
      },
      abandoned: async () => {
        await this.redis.eval(GIVE_BACK, counters.length, ...counters);
      },
    };
  }

  /** Forgets the login's failures (after a password reset, which proved the mailbox). */
  async forgive(login: string): Promise<void> {
    await this.redis.del(`login-failures:login:${sha256(loginKey(login))}`);
  }
}
