import { DataSource, type DataSourceOptions } from 'typeorm';
import { type MigrationClass, MIGRATIONS } from './migrations/index.js';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';

export const MIGRATIONS_TABLE = 'schema_migrations';
/** Pooled connections per process. */
export const DATABASE_POOL_SIZE = 10;

export function dataSourceOptions(
  databaseUrl: string,
  migrations: MigrationClass[] = MIGRATIONS,
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
      // Another process created it between the check and the CREATE.
      if ((error as { code?: string }).code === '42P04') return false;
      throw error;
    }
  });
}

/** Creates the database if needed and applies pending migrations; returns the names applied. */
export async function migrate(
  databaseUrl: string,
  migrations: MigrationClass[] = MIGRATIONS,
): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const dataSource = new DataSource(dataSourceOptions(databaseUrl, migrations));
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}
