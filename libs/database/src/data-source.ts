import { DataSource, type DataSourceOptions } from 'typeorm';
import type { MigrationClass } from './schema-parts.js';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';

export const MIGRATIONS_TABLE = 'schema_migrations';
/** Pooled connections per process. */
export const DATABASE_POOL_SIZE = 10;

/**
 * Options of a DataSource on `databaseUrl`. Only `migrate` passes migrations (the whole list is
 * composed above this library, which knows no domain library); the runtime never runs them.
 */
export function dataSourceOptions(
  databaseUrl: string,
  migrations: MigrationClass[] = [],
): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    migrations,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    extra: { max: DATABASE_POOL_SIZE, application_name: 'platform' },
  };
}

/** Same database server, the maintenance database: where CREATE/DROP DATABASE are issued. */
export function maintenanceUrl(databaseUrl: string): { url: string; database: string } {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  return { url: url.toString(), database };
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function withMaintenanceConnection<T>(
  databaseUrl: string,
  fn: (dataSource: DataSource, database: string) => Promise<T>,
): Promise<T> {
  const { url, database } = maintenanceUrl(databaseUrl);
  const dataSource = new DataSource({ type: 'postgres', url, extra: { max: 1 } });
  await dataSource.initialize();
  try {
    return await fn(dataSource, database);
  } finally {
    await dataSource.destroy();
  }
}

/** Creates the database named by the URL when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  return withMaintenanceConnection(databaseUrl, async (dataSource, database) => {
    const rows: unknown[] = await dataSource.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      database,
    ]);
    if (rows.length > 0) return false;
    try {
      await dataSource.query(`CREATE DATABASE ${quoteIdentifier(database)}`);
      return true;
    } catch (error) {
      // Another process created it between the check and the CREATE: PostgreSQL reports
      // duplicate_database, or a unique violation on pg_database's name index when both
      // CREATEs passed PostgreSQL's own check at once.
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') return false;
      throw error;
    }
  });
}

/**
 * Key of the session-level advisory lock that serializes `migrate` runs; advisory locks are per
 * database, so runs on different databases never wait for each other. An arbitrary constant.
 */
export const MIGRATION_LOCK = 1_764_000_000_000;

/**
 * Creates the database if needed and applies pending migrations; returns the names applied.
 * Runs at once (replicas of a migration job, `npm start` beside a deployment) take turns: each
 * holds the advisory lock while it reads which migrations are applied and applies the rest, so
 * a later run finds nothing left to do instead of failing on the first run's tables.
 */
export async function migrate(
  databaseUrl: string,
  migrations: MigrationClass[],
): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const dataSource = new DataSource(dataSourceOptions(databaseUrl, migrations));
  await dataSource.initialize();
  try {
    // Session-level: with a transaction per migration, no one transaction spans the run.
    const lock = dataSource.createQueryRunner();
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      await lock.release();
    }
  } finally {
    // Closing the pool also ends the lock's session, should the unlock have failed.
    await dataSource.destroy();
  }
}
