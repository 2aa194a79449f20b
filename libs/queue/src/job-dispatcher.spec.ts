import { describe, expect, it } from '@jest/globals';
import { Global, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CoreModule, loadConfig } from '@platform/core';
import { JobCatalogError, OnJob, verifyJobCoverage } from './job-dispatcher.js';
import { JOB_CATALOG, type JobName } from './jobs.js';
import { QueueName } from './queue-name.js';
import { WorkerRuntimeModule } from './worker-runtime.module.js';

const SEND = 'test.send' as unknown as JobName;
const FLUSH = 'test.flush' as unknown as JobName;

@Injectable()
class OnlySendProcessor {
  @OnJob(SEND)
  async send(): Promise<void> {}
}

@Global()
@Module({
  providers: [
    {
      provide: JOB_CATALOG,
      useValue: { [SEND as string]: QueueName.Deliveries, [FLUSH as string]: QueueName.Digests },
    },
  ],
  exports: [JOB_CATALOG],
})
class CatalogWithUncoveredJob {}

describe('job coverage', () => {
  it('accepts a catalog whose every job has exactly one processor', () => {
    expect(() =>
      verifyJobCoverage({ a: QueueName.Deliveries }, new Map([['a', [() => 1]]])),
    ).not.toThrow();
  });

  it('names every job without a processor, with two, or without a declaration', () => {
    const catalog = { a: QueueName.Deliveries, b: QueueName.Digests, c: QueueName.Digests };
    const handlers = new Map<string, unknown[]>([
      ['a', [1]],
      ['c', [1, 2]],
      ['z', [1]],
    ]);
    expect(() => verifyJobCoverage(catalog, handlers)).toThrow(
      new JobCatalogError([
        'job "b" has no processor',
        'job "c" has 2 processors',
        'processor for undeclared job "z"',
      ]),
    );
  });
});

describe('worker start-up', () => {
  it('refuses to start when a declared job has no processor', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [CoreModule.forRoot(loadConfig({})), CatalogWithUncoveredJob, WorkerRuntimeModule],
      providers: [OnlySendProcessor],
    }).compile();
    await expect(moduleRef.init()).rejects.toThrow('job "test.flush" has no processor');
    await moduleRef.close();
  });
});
