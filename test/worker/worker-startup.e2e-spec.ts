import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { NestFactory } from '@nestjs/core';
import { Dependencies, JsonLogger } from '@platform/core';
import { PlatformAdminStartup } from '@platform/identity';
import { ChannelRegistry, NotificationPush } from '@platform/notifications';
import { CableCredentialWatch } from '../../libs/notifications/src/realtime/cable-credential-watch.js';
import { NotificationsCableGateway } from '../../libs/notifications/src/realtime/notifications-cable.gateway.js';
import { PushRelay } from '../../libs/notifications/src/realtime/push-relay.js';
import { JOB_QUEUES, QueueName } from '@platform/queue';
import { createTestDatabase, deleteRedisPrefix, testConfig } from '@platform/testing';
import { DataSource } from 'typeorm';
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

  it('serves no sockets: the socket gateway, the push relay and the credential watch stay in the API', async () => {
    const database = await createTestDatabase();
    const config = testConfig(database);
    try {
      const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
        logger: false,
      });
      try {
        for (const apiOnly of [NotificationsCableGateway, PushRelay, CableCredentialWatch])
          expect(() => app.get(apiOnly, { strict: false })).toThrow();
        // What it needs to notify in real time and to deliver is there.
        expect(app.get(NotificationPush, { strict: false })).toBeInstanceOf(NotificationPush);
        expect(app.get(ChannelRegistry, { strict: false })).toBeInstanceOf(ChannelRegistry);
      } finally {
        await app.close();
      }
    } finally {
      await database.drop();
      await deleteRedisPrefix(config.redisPrefix);
    }
  });

  it('leaves the platform admin to migrate and the API, even with the variables set', async () => {
    const database = await createTestDatabase();
    const admin = { login: 'root@worker.example', password: 'platform admin password 1' };
    const config = testConfig(database, { platformAdmin: admin });
    try {
      const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
        logger: false,
      });
      try {
        expect(() => app.get(PlatformAdminStartup, { strict: false })).toThrow();
        const accounts: unknown[] = await app.get(DataSource).query('SELECT id FROM account');
        expect(accounts).toEqual([]);
      } finally {
        await app.close();
      }
    } finally {
      await database.drop();
      await deleteRedisPrefix(config.redisPrefix);
    }
  });

  it('does not take its Redis connection still being made at start-up for an outage', async () => {
    const database = await createTestDatabase();
    const config = testConfig(database);
    const lines: Array<{ level: string; context?: string; message: string }> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(line));
        done();
      },
    });
    try {
      const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
        logger: JsonLogger.create('worker', 'info', destination),
      });
      // The start-up check has answered by now, whichever way.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const up = app.get(Dependencies, { strict: false }).isUp('redis');
      await app.close();
      expect(up).toBe(true);
    } finally {
      await database.drop();
      await deleteRedisPrefix(config.redisPrefix);
    }
    // Neither "Redis is unreachable" nor "Redis answers again".
    expect(lines.filter((line) => line.context === 'dependencies')).toEqual([]);
  });
});
