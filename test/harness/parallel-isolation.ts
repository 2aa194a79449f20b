import { expect } from '@jest/globals';
import { createTestDatabase } from '@platform/testing';
import { Redis } from 'ioredis';
import pg from 'pg';

const RENDEZVOUS_TIMEOUT_MS = 20_000;

/**
 * Shared body of the two parallel-* files. Each creates its own database, writes a marker,
 * then waits until the other file is running at the same time (they meet through Redis, keyed
 * by the jest run) and checks that neither sees the other's data.
 */
export async function proveParallelIsolation(me: 'a' | 'b'): Promise<void> {
  const other = me === 'a' ? 'b' : 'a';
  const database = await createTestDatabase();
  const client = new pg.Client({ connectionString: database.url });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const runKey = `test-harness-rendezvous:${process.ppid}`;
  try {
    await client.connect();
    await client.query('CREATE TABLE marker (file text NOT NULL)');
    await client.query('INSERT INTO marker VALUES ($1)', [me]);
    await redis.hset(runKey, me, database.name);
    await redis.expire(runKey, 120);

    const deadline = Date.now() + RENDEZVOUS_TIMEOUT_MS;
    let otherDatabase: string | null = null;
    while (!otherDatabase && Date.now() < deadline) {
      otherDatabase = await redis.hget(runKey, other);
      if (!otherDatabase) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!otherDatabase) {
      throw new Error(
        `parallel-${other} did not run alongside parallel-${me}: run both files together with two workers`,
      );
    }

    expect(otherDatabase).not.toBe(database.name);
    const rows = await client.query<{ file: string }>('SELECT file FROM marker');
    expect(rows.rows).toEqual([{ file: me }]);
    const dbName = await client.query<{ name: string }>('SELECT current_database() AS name');
    expect(dbName.rows[0].name).toBe(database.name);
    // Hold on until the other side has checked too, so both run concurrently throughout.
    await redis.hset(runKey, `${me}-done`, '1');
    const doneDeadline = Date.now() + RENDEZVOUS_TIMEOUT_MS;
    while (!(await redis.hget(runKey, `${other}-done`)) && Date.now() < doneDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
    redis.disconnect();
    await database.drop();
  }
}
