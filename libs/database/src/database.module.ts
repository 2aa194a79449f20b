import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig, Dependencies, HealthRegistry } from '@platform/core';
import pg from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { dataSourceOptions } from './data-source.js';
import { deferredConnectionDataSource } from './deferred-connection.js';

/** How long the readiness and recovery probe waits for PostgreSQL. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * The PostgreSQL connection. Entities are registered by each module with
 * `TypeOrmModule.forFeature`. Start-up does not wait for the database (see
 * deferred-connection.ts): while it is down, requests that need it answer 503 and the probe
 * reports it, and it is used again as soon as it answers.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG, Dependencies],
      useFactory: (config: AppConfig, dependencies: Dependencies) => ({
        ...dataSourceOptions(config.databaseUrl),
        autoLoadEntities: true,
        retryAttempts: 0,
        poolErrorHandler: (error: Error) => dependencies.reportFailure('database', error),
      }),
      dataSourceFactory: async (options) =>
        deferredConnectionDataSource(
          options as DataSourceOptions & { url: string },
          (options as { poolErrorHandler: (error: Error) => void }).poolErrorHandler,
        ),
    }),
  ],
})
export class DatabaseModule implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dependencies: Dependencies,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    this.dependencies.setProbe('database', () => probeDatabase(this.config.databaseUrl));
    this.health.register('database', () => this.dependencies.check('database'));
  }
}

/**
 * `SELECT 1` on a connection of its own, not a pooled one: a pool busy with slow work must not
 * look like an unreachable server.
 */
export async function probeDatabase(databaseUrl: string): Promise<void> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
    application_name: 'platform-probe',
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}
