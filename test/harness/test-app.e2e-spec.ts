import { describe, expect, it } from '@jest/globals';
import { REDIS } from '@platform/queue';
import { redisUrl, type TestApp } from '@platform/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';

async function databaseExists(name: string): Promise<boolean> {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/platform');
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const res = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return res.rowCount === 1;
  } finally {
    await client.end();
  }
}

async function keysUnder(prefix: string): Promise<string[]> {
  const redis = new Redis(redisUrl());
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
    return keys;
  } finally {
    redis.disconnect();
  }
}

const organizations = async (t: TestApp): Promise<string[]> =>
  (
    (await t.get(DataSource).query('SELECT name FROM organization ORDER BY name')) as Array<{
      name: string;
    }>
  ).map((r) => r.name);

describe('test app factory', () => {
  it('gives each app a migrated database and a Redis prefix of its own, and removes both on close', async () => {
    const a = await createApiTestApp();
    const b = await createApiTestApp();
    try {
      expect(a.database.name).not.toBe(b.database.name);
      expect(a.config.databaseUrl).toBe(a.database.url);
      expect(a.config.redisPrefix).not.toBe(b.config.redisPrefix);
      expect(await databaseExists(a.database.name)).toBe(true);

      // Cloned from the migrated template: the seeded legal documents are there.
      const documents = (await a
        .get(DataSource)
        .query('SELECT count(*)::int AS n FROM legal_document')) as Array<{ n: number }>;
      expect(documents[0].n).toBe(3);

      await a.get(DataSource).query("INSERT INTO organization (name) VALUES ('only in a')");
      expect(await organizations(a)).toEqual(['only in a']);
      expect(await organizations(b)).toEqual([]);

      await a.get<Redis>(REDIS).set('marker', 'a');
      expect(await b.get<Redis>(REDIS).get('marker')).toBeNull();
      expect(await keysUnder(a.config.redisPrefix)).toContain(`${a.config.redisPrefix}:marker`);
    } finally {
      await a.close();
      await b.close();
    }
    for (const t of [a, b]) {
      expect(await databaseExists(t.database.name)).toBe(false);
      expect(await keysUnder(t.config.redisPrefix)).toEqual([]);
    }
  });

  it('serves through supertest and runs on a clock the test moves', async () => {
    const t = await createApiTestApp();
    try {
      await t.agent().get('/health/live').expect(200);
      t.clock.set('2026-03-01T08:00:00.000Z');
      const first = await t.request().get('/legal/agb').expect(200);
      expect(first.body.metadata.timestamp).toBe('2026-03-01T08:00:00.000Z');
      t.clock.advance({ hours: 1, minutes: 30 });
      const later = await t.request().get('/legal/agb').expect(200);
      expect(later.body.metadata.timestamp).toBe('2026-03-01T09:30:00.000Z');
    } finally {
      await t.close();
    }
  });
});
