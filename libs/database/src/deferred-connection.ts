import { tagUnavailable } from '@platform/core';
import pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';

/** How long a request waits for a pooled connection before it is refused (503). */
export const CONNECT_TIMEOUT_MS = 3000;

/** The parts of TypeORM's PostgresDriver that open its pool at `initialize()`. */
interface PostgresDriverInternals {
  version?: string;
  database?: string;
  searchSchema?: string;
  schema?: string;
  isGeneratedColumnsSupported: boolean;
  createPool(options: DataSourceOptions, credentials: { url?: string }): Promise<pg.Pool>;
  afterConnect(): Promise<void>;
}

/**
 * A DataSource whose `initialize()` needs no answer from PostgreSQL, so a process starts, serves
 * its probes and answers 503 while the database is down, and works as soon as it is back
 * without a restart. TypeORM opens its pool with a test connection and asks the server for its
 * version, database and schema; here the pool is created without that connection (pg connects
 * lazily anyway), the database and schema come from the URL and PostgreSQL's default, and the
 * version is the oldest we support. `afterConnect` would install extensions, which migrations
 * do. Every error of the pool's connection attempts is tagged as the database's, so it maps to
 * 503 rather than 500.
 */
export function deferredConnectionDataSource(
  options: DataSourceOptions & { url: string },
  onPoolError: (error: Error) => void,
): DataSource {
  const dataSource = new DataSource(options);
  const driver = dataSource.driver as unknown as PostgresDriverInternals;
  driver.version = '15.0';
  driver.database = decodeURIComponent(new URL(options.url).pathname.replace(/^\//, ''));
  driver.searchSchema = 'public';
  driver.schema = 'public';
  driver.createPool = async (poolOptions, credentials) => {
    const extra = (poolOptions as { extra?: pg.PoolConfig }).extra ?? {};
    const pool = new pg.Pool({
      connectionString: credentials.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      ...extra,
    });
    pool.on('error', (error) => onPoolError(tagUnavailable(error, 'database')));
    pool.on('connect', (client) => listenForTheWholeLife(client, onPoolError));
    tagConnectErrors(pool);
    return pool;
  };
  driver.afterConnect = async () => {
    driver.isGeneratedColumnsSupported = true;
  };
  return dataSource;
}

/**
 * pg-pool stops listening to a connection's errors when it hands the connection out, and
 * TypeORM's query runner starts only a promise turn later. When PostgreSQL stops as a
 * connection opens, its ReadyForQuery and the FATAL 57P01 arrive in one TCP segment, parsed in
 * one go: the error is emitted in between with no listener, which would crash the process.
 * This listener stays for the connection's whole life and reports only what no one else
 * heard; the connection is then unusable, its next query fails and the pool drops it.
 */
function listenForTheWholeLife(client: pg.PoolClient, onPoolError: (error: Error) => void): void {
  client.on('error', (error) => {
    if (client.listenerCount('error') === 1) onPoolError(tagUnavailable(error, 'database'));
  });
}

type ConnectCallback = (error: Error | undefined, client?: unknown, done?: unknown) => void;

/** pg reports a refused or timed-out connection as a plain socket error: say whose it is. */
function tagConnectErrors(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as (callback?: ConnectCallback) => unknown;
  (pool as unknown as { connect: (callback?: ConnectCallback) => unknown }).connect = (
    callback?: ConnectCallback,
  ) => {
    if (!callback) {
      return (connect() as Promise<unknown>).catch((error: Error) => {
        throw tagUnavailable(error, 'database');
      });
    }
    return connect((error, client, done) =>
      callback(error ? tagUnavailable(error, 'database') : error, client, done),
    );
  };
}
