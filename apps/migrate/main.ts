import 'reflect-metadata';
import { JsonLogger, loadConfigOrExit, SystemClock } from '@platform/core';
import { dataSourceOptions, migrate } from '@platform/database';
import { ensurePlatformAdmin, PasswordHasher } from '@platform/identity';
import { MIGRATIONS } from '@platform/schema';
import { DataSource } from 'typeorm';

/**
 * Creates the database when it is missing, applies pending migrations, then ensures the
 * platform admin when PLATFORM_ADMIN_LOGIN and PLATFORM_ADMIN_PASSWORD are set, so the account
 * exists before the API and the worker start. Any number of runs may go at once.
 */
const config = loadConfigOrExit();
const logger = JsonLogger.create('migrate', config.logLevel);
try {
  const applied = await migrate(config.databaseUrl, MIGRATIONS);
  logger.log(
    applied.length
      ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
      : 'schema is up to date',
    'migrate',
  );
  const admin = config.platformAdmin;
  if (admin) {
    const dataSource = await new DataSource(dataSourceOptions(config.databaseUrl)).initialize();
    try {
      const outcome = await ensurePlatformAdmin(
        dataSource,
        admin,
        new PasswordHasher(config.passwordHashing),
        new SystemClock().now(),
      );
      logger.log(`platform admin ${admin.login} ${outcome}`, 'migrate');
    } finally {
      await dataSource.destroy();
    }
  }
} catch (error) {
  logger.fatal(error instanceof Error ? error.message : String(error), 'migrate');
  process.exit(1);
}
