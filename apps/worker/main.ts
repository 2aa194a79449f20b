import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { JsonLogger, loadConfigOrExit } from '@platform/core';
import { WorkerModule } from './worker.module.js';

const config = loadConfigOrExit();
const logger = JsonLogger.create('worker', config.logLevel);
try {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger });
  app.enableShutdownHooks();
  logger.log('worker started', 'worker');
} catch (error) {
  logger.fatal(error instanceof Error ? error.message : String(error), 'worker');
  process.exit(1);
}
