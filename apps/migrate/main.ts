import 'reflect-metadata';
import { JsonLogger, loadConfigOrExit } from '@platform/core';
import { migrate } from '@platform/database';

/** Creates the database when it is missing and applies pending migrations. */
const config = loadConfigOrExit();
const logger = JsonLogger.create('migrate', config.logLevel);
try {
  const applied = await migrate(config.databaseUrl);
  logger.log(
    applied.length
      ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
      : 'schema is up to date',
    'migrate',
  );
} catch (error) {
  logger.fatal(error instanceof Error ? error.message : String(error), 'migrate');
  process.exit(1);
}
