import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CoreModule } from '@platform/core';
import {
  DeferJob,
  JOB_CATALOG,
  JobQueue,
  type JobName,
  OnJob,
  QueueModule,
  QueueName,
  WorkerRuntimeModule,
} from '@platform/queue';
import {
  createTestDatabase,
  deleteRedisPrefix,
  testConfig,
  type TestDatabase,
} from '@platform/testing';
import { type Job, QueueEvents } from 'bullmq';

const ECHO = 'test.echo' as unknown as JobName;
const WAIT_ONCE = 'test.wait-once' as unknown as JobName;

/** Asks to wait (as a rate-limited sender does) on its first run, then succeeds. */
@Injectable()
class WaitOnceProcessor {
  readonly runs: Array<{ at: number; attemptsMade: number }> = [];

  @OnJob(WAIT_ONCE)
  async run(_data: unknown, job: Job): Promise<string> {
    this.runs.push({ at: Date.now(), attemptsMade: job.attemptsMade });
    if (this.runs.length === 1) throw new DeferJob(400, 'over the limit');
    return 'done';
  }
}

@Injectable()
class EchoProcessor {
  readonly received: Array<{ data: unknown; queue: string }> = [];
  private wake?: () => void;

  @OnJob(ECHO)
  async echo(data: unknown, job: Job): Promise<void> {
    this.received.push({ data, queue: job.queueName });
    this.wake?.();
  }

  async next(timeoutMs = 5000): Promise<void> {
    if (this.received.length > 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('job not processed')), timeoutMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

describe('job queue and worker runtime', () => {
  let database: TestDatabase;
  let app: INestApplicationContext;
  let prefix: string;
  let events: QueueEvents;

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = testConfig(database);
    prefix = config.redisPrefix;
    const moduleRef = await Test.createTestingModule({
      imports: [CoreModule.forRoot(config), QueueModule, WorkerRuntimeModule],
      providers: [EchoProcessor, WaitOnceProcessor],
    })
      .overrideProvider(JOB_CATALOG)
      .useValue({ [ECHO]: QueueName.Maintenance, [WAIT_ONCE]: QueueName.Maintenance })
      .compile();
    app = await moduleRef.init();
    events = new QueueEvents(QueueName.Maintenance, {
      connection: { url: config.redisUrl },
      prefix,
    });
    await events.waitUntilReady();
  });

  afterAll(async () => {
    await events.close();
    await app.close();
    await database.drop();
    await deleteRedisPrefix(prefix);
  });

  it('delivers an enqueued job to its processor on the catalog queue, through Redis', async () => {
    const jobs = app.get(JobQueue);
    const id = await jobs.enqueue(ECHO, { hello: 'worker' } as never);
    const processor = app.get(EchoProcessor);
    await processor.next();
    expect(processor.received).toEqual([
      { data: { hello: 'worker' }, queue: QueueName.Maintenance },
    ]);
    // The handler returns before BullMQ records the completion: wait for Redis to say so.
    const job = await jobs.queue(QueueName.Maintenance).getJob(id);
    await job!.waitUntilFinished(events, 5000);
  });

  it('keeps its queues under its own Redis prefix', async () => {
    const counts = await app.get(JobQueue).queue(QueueName.Maintenance).getJobCounts('completed');
    expect(counts.completed).toBe(1);
    expect(app.get(JobQueue).queue(QueueName.Maintenance).opts.prefix).toBe(prefix);
  });

  it('runs a deferred job again after its delay without using one of its attempts', async () => {
    const jobs = app.get(JobQueue);
    // One attempt only: were the deferral a failure, the job would fail for good.
    const id = await jobs.enqueue(WAIT_ONCE, {} as never, { attempts: 1 });
    const job = await jobs.queue(QueueName.Maintenance).getJob(id);
    expect(await job!.waitUntilFinished(events, 10_000)).toBe('done');
    const { runs } = app.get(WaitOnceProcessor);
    expect(runs.map((run) => run.attemptsMade)).toEqual([0, 0]);
    expect(runs[1].at - runs[0].at).toBeGreaterThanOrEqual(400);
  });

  it('counts the jobs of a queue waiting or running on any worker, not the delayed ones', async () => {
    const jobs = app.get(JobQueue);
    // No worker here runs the digests queue: what is added stays waiting.
    const digests = jobs.queue(QueueName.Digests);
    expect(await jobs.unfinished(QueueName.Digests)).toBe(0);
    await digests.add('waiting', {});
    await digests.add('prioritized', {}, { priority: 3 });
    await digests.add('delayed', {}, { delay: 60_000 });
    expect(await jobs.unfinished(QueueName.Digests)).toBe(2);
    await digests.obliterate({ force: true });
    expect(await jobs.unfinished(QueueName.Digests)).toBe(0);
  });

  it('refuses a job that is not in the catalog', async () => {
    await expect(
      app.get(JobQueue).enqueue('test.unknown' as unknown as JobName, {} as never),
    ).rejects.toThrow('not declared in the job catalog');
  });
});
