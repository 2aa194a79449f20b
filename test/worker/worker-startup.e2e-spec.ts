import { describe, expect, it } from '@jest/globals';
import { NestFactory } from '@nestjs/core';
import { JOB_QUEUES, QueueName } from '@platform/queue';
import { createTestDatabase, deleteRedisPrefix, testConfig } from '@platform/testing';
import { WorkerModule } from '../../apps/worker/worker.module.js';

describe('worker application', () => {
  it('starts with a processor for every job of the production catalog', async () => {
    const database = await createTestDatabase();
    const config = testConfig(database);
    try {
      const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
        logger: false,
      });
      await app.close();
    } finally {
      await database.drop();
      await deleteRedisPrefix(config.redisPrefix);
    }
    for (const queue of Object.values(JOB_QUEUES))
      expect(Object.values(QueueName)).toContain(queue);
  });
});
