import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { ALERTS_PRUNE_SCHEDULER_ID } from '@platform/alerting';
import { JobQueue, QueueName, REDIS } from '@platform/queue';
import { expectEventually, LogCapture, PrivateRedis } from '@platform/testing';
import type { Redis } from 'ioredis';
import { createMailingApiTestApp, type MailingTestApp } from '../support/api-app.js';

/**
 * Redis restarted so quickly that its clients reconnect without a refused connection: no
 * outage to confirm, yet the server behind them is a new, empty one (it keeps nothing on disk).
 * The process notices the new server run, says so, and makes the job schedules it keeps there
 * again.
 */
describe('Redis restarted too quickly to be an outage', () => {
  const log = new LogCapture();
  let redis: PrivateRedis;
  let t: MailingTestApp;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    t = await createMailingApiTestApp({
      logDestination: log.stream,
      config: { redisUrl: redis.url(), logLevel: 'info' },
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  /** The keys of the schedules the worker keeps in Redis for digests and alert retention. */
  const schedules = async () => {
    const jobs = t.get(JobQueue);
    const [digests, maintenance] = await Promise.all([
      jobs.queue(QueueName.Digests).getJobSchedulers(),
      jobs.queue(QueueName.Maintenance).getJobSchedulers(),
    ]);
    return [...digests, ...maintenance].map((scheduler) => scheduler.key);
  };

  it('makes the erased schedules again and logs the restart once', async () => {
    const expected = ['digest-sweep', ALERTS_PRUNE_SCHEDULER_ID];
    await expectEventually(async () =>
      expect(await schedules()).toEqual(expect.arrayContaining(expected)),
    );
    // The process read which server run it reached when its client got ready: a PING on that
    // connection is answered after that INFO.
    await t.get<Redis>(REDIS).ping();

    await redis.restart();

    await expectEventually(
      async () => expect(await schedules()).toEqual(expect.arrayContaining(expected)),
      { what: 'the schedules in the restarted Redis', timeoutMs: 5000 },
    );
    // Logged whether or not a reconnection was refused in between (then after the end of an
    // outage): without the check of the server run, neither the line nor, after a restart
    // this quick, the schedules would come.
    const restarts = log.lines().filter((line) => /^Redis restarted/.test(line.message ?? ''));
    expect(restarts).toHaveLength(1);
    expect(restarts[0]).toMatchObject({ level: 'warn', dependency: 'redis' });
    expect(restarts[0].runId).not.toEqual(restarts[0].previousRunId);
  }, 60_000);
});
