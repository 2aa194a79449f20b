import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  configureHttpApp,
  exitGracefullyOnSignals,
  JsonLogger,
  loadConfigOrExit,
} from '@platform/core';
import { ApiModule } from './api.module.js';

const config = loadConfigOrExit();
const logger = JsonLogger.create('api', config.logLevel);
if (config.secretKeyIsDefault) {
  logger.warn(
    'SECRET_KEY is not set: using the development key; never do this in production',
    'config',
  );
}
const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(config), {
  bodyParser: false,
  logger,
});
configureHttpApp(app, config, logger);
exitGracefullyOnSignals(app, {
  logger,
  name: 'api',
  delayMs: config.shutdownDelaySeconds * 1000,
  timeoutMs: config.shutdownTimeoutSeconds * 1000,
});
await app.listen(config.port);
logger.log(`listening on port ${config.port}`, 'api');
