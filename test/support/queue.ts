import { expect } from '@jest/globals';
import { JobName, JobQueue } from '@platform/queue';
import { eventually, type TestApp } from '@platform/testing';
import { Redis } from 'ioredis';

/**
 * Waits for the delayed job `jobId`, then takes it out of its queue's delayed set with its record
 * kept, as a partial flush or an eviction of Redis can: the job is in no state ('unknown') and
 * its id stays taken.
 */
export async function loseDelayedPlace(t: TestApp, name: JobName, jobId: string): Promise<void> {
  const jobs = t.get(JobQueue);
  const queue = jobs.queue(jobs.queueOf(name));
  await eventually(async () => (await queue.getJob(jobId)) !== undefined, `job ${jobId}`);
  const redis = new Redis(t.config.redisUrl);
  try {
    expect(await redis.zrem(queue.keys.delayed, jobId)).toBe(1);
  } finally {
    redis.disconnect();
  }
  expect(await (await queue.getJob(jobId))!.getState()).toBe('unknown');
}
