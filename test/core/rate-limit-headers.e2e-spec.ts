import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';

/*
 * Rate-limited routes tell clients where they stand (RateLimit-Limit, -Remaining, -Reset in
 * seconds) on every answer, the 429 included; other routes send none. Password reset requests
 * are limited to 3 an hour per login and 10 per client address: the login's is the tighter.
 */
describe('RateLimit headers', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createApiTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  const requestReset = () =>
    t.request().post('/password-reset').send({ login: 'nobody@example.com' });

  it('counts down the tightest limit, then refuses with Remaining 0 and Reset = Retry-After', async () => {
    const seen: Array<[number, string, string, string]> = [];
    for (let n = 0; n < 4; n += 1) {
      const res = await requestReset();
      seen.push([
        res.status,
        res.headers['ratelimit-limit'],
        res.headers['ratelimit-remaining'],
        res.headers['ratelimit-reset'],
      ]);
      if (res.status === 429)
        expect(res.headers['ratelimit-reset']).toBe(res.headers['retry-after']);
    }
    expect(seen).toEqual([
      [202, '3', '2', '3600'],
      [202, '3', '1', '3600'],
      [202, '3', '0', '3600'],
      [429, '3', '0', '3600'],
    ]);
  });

  it('sends no RateLimit headers where nothing is limited', async () => {
    const res = await t.request().get('/health/live').expect(200);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });
});
