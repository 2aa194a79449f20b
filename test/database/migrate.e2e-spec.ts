import { afterEach, describe, expect, it } from '@jest/globals';
import {
  dataSourceOptions,
  ensureDatabase,
  migrate,
  MIGRATIONS_TABLE,
  withMaintenanceConnection,
} from '@platform/database';
import { MIGRATIONS } from '@platform/schema';
import { createTestDatabase } from '@platform/testing';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';

class CreateWidgets1700000000000 implements MigrationInterface {
  name = 'CreateWidgets1700000000000';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE widget (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE widget');
  }
}

class AddWidgetName1700000000001 implements MigrationInterface {
  name = 'AddWidgetName1700000000001';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE widget ADD COLUMN display_name text NOT NULL DEFAULT ''`);
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE widget DROP COLUMN display_name');
  }
}

class Broken1700000000002 implements MigrationInterface {
  name = 'Broken1700000000002';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE half_done (id int)');
    await runner.query('THIS IS NOT SQL');
  }
  async down(): Promise<void> {}
}

function databaseUrl(name: string): string {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/platform');
  url.pathname = `/${name}`;
  return url.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('migrate', () => {
  const created: string[] = [];

  afterEach(async () => {
    for (const name of created.splice(0)) {
      await withMaintenanceConnection(databaseUrl(name), (admin) =>
        admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
      );
    }
  });

  it('creates a missing database and applies pending migrations in order, once', async () => {
    const name = `platform_migrate_${randomBytes(5).toString('hex')}`;
    created.push(name);
    const url = databaseUrl(name);

    expect(await migrate(url, [CreateWidgets1700000000000])).toEqual([
      'CreateWidgets1700000000000',
    ]);
    expect(await migrate(url, [CreateWidgets1700000000000, AddWidgetName1700000000001])).toEqual([
      'AddWidgetName1700000000001',
    ]);
    expect(await migrate(url, [CreateWidgets1700000000000, AddWidgetName1700000000001])).toEqual(
      [],
    );

    const columns = await query<{ column_name: string; data_type: string }>(
      url,
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'widget' ORDER BY ordinal_position",
    );
    expect(columns).toEqual([
      { column_name: 'id', data_type: 'uuid' },
      { column_name: 'created_at', data_type: 'timestamp with time zone' },
      { column_name: 'display_name', data_type: 'text' },
    ]);
    const applied = await query<{ name: string }>(
      url,
      `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`,
    );
    expect(applied.map((r) => r.name)).toEqual([
      'CreateWidgets1700000000000',
      'AddWidgetName1700000000001',
    ]);
  });

  it('runs at once from several processes on one fresh database: each migration applied once', async () => {
    const name = `platform_migrate_${randomBytes(5).toString('hex')}`;
    created.push(name);
    const url = databaseUrl(name);
    const migrations = [CreateWidgets1700000000000, AddWidgetName1700000000001];

    const runs = await Promise.all(Array.from({ length: 4 }, () => migrate(url, migrations)));

    // One run applied both; the others, serialized behind it, found nothing left to do.
    expect(runs.flat().sort()).toEqual([
      'AddWidgetName1700000000001',
      'CreateWidgets1700000000000',
    ]);
    expect(runs.filter((applied) => applied.length > 0)).toHaveLength(1);
    const applied = await query<{ name: string }>(
      url,
      `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`,
    );
    expect(applied.map((r) => r.name)).toEqual([
      'CreateWidgets1700000000000',
      'AddWidgetName1700000000001',
    ]);
  });

  it('rolls back a failing migration as a whole', async () => {
    const name = `platform_migrate_${randomBytes(5).toString('hex')}`;
    created.push(name);
    const url = databaseUrl(name);
    await expect(migrate(url, [CreateWidgets1700000000000, Broken1700000000002])).rejects.toThrow();
    const tables = await query<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.map((t) => t.table_name)).toEqual([MIGRATIONS_TABLE, 'widget']);
  });

  it('leaves an existing database alone', async () => {
    const name = `platform_migrate_${randomBytes(5).toString('hex')}`;
    created.push(name);
    expect(await ensureDatabase(databaseUrl(name))).toBe(true);
    expect(await ensureDatabase(databaseUrl(name))).toBe(false);
  });

  it('creates a missing database once when several processes ask at once', async () => {
    const name = `platform_migrate_${randomBytes(5).toString('hex')}`;
    created.push(name);
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => ensureDatabase(databaseUrl(name))),
    );
    expect(outcomes.filter(Boolean)).toEqual([true]);
  });

  it('never synchronizes: the schema comes from the migrations only', () => {
    const options = dataSourceOptions(databaseUrl('platform'));
    expect(options.synchronize).toBe(false);
    expect(options.migrationsRun).toBe(false);
    expect(dataSourceOptions(databaseUrl('platform'), MIGRATIONS).migrations).toEqual(MIGRATIONS);
  });

  it('gives the real schema UUID keys, timestamptz times and snake_case names', async () => {
    const database = await createTestDatabase();
    try {
      const columns = await query<{ table_name: string; column_name: string; data_type: string }>(
        database.url,
        `SELECT table_name, column_name, data_type FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name <> '${MIGRATIONS_TABLE}'
          ORDER BY table_name, ordinal_position`,
      );
      expect(columns.length).toBeGreaterThan(0);
      const label = (c: { table_name: string; column_name: string; data_type: string }) =>
        `${c.table_name}.${c.column_name} (${c.data_type})`;

      const badNames = columns.filter(
        (c) => !/^[a-z][a-z0-9_]*$/.test(c.table_name) || !/^[a-z][a-z0-9_]*$/.test(c.column_name),
      );
      expect(badNames.map(label)).toEqual([]);

      const ids = columns.filter((c) => c.column_name === 'id');
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.filter((c) => c.data_type !== 'uuid').map(label)).toEqual([]);

      const badTimes = columns.filter(
        (c) => c.data_type.startsWith('timestamp') && c.data_type !== 'timestamp with time zone',
      );
      expect(badTimes.map(label)).toEqual([]);
      const times = columns.filter((c) => /_at$/.test(c.column_name));
      expect(times.length).toBeGreaterThan(0);
      expect(times.filter((c) => c.data_type !== 'timestamp with time zone').map(label)).toEqual(
        [],
      );
    } finally {
      await database.drop();
    }
  });
});
