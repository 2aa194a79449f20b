import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CoreModule } from '@platform/core';
import {
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
      providers: [EchoProcessor],
    })
      .overrideProvider(JOB_CATALOG)
      .useValue({ [ECHO]: QueueName.Maintenance })
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

  it('refuses a job that is not in the catalog', async () => {
    await expect(
      app.get(JobQueue).enqueue('test.unknown' as unknown as JobName, {} as never),
    ).rejects.toThrow('not declared in the job catalog');
  });
});
