import { NestFactory } from '@nestjs/core';
import { type DynamicModule } from '@nestjs/common';
import { JsonLogger, loadConfigOrExit } from '@platform/core';
import { OperatorModule } from './operator.module.js';

/**
 * Starts an operator process: probes on PORT, graceful shutdown on SIGTERM. Operators sign
 * nothing, so they run without SECRET_KEY.
 */
export async function bootstrapOperator(
  name: string,
  imports: DynamicModule['imports'] = [],
): Promise<void> {
  const config = loadConfigOrExit(process.env, { usesSecretKey: false });
  const logger = JsonLogger.create(name, config.logLevel);
  const app = await NestFactory.create(OperatorModule.forRoot(config, imports), { logger });
  app.enableShutdownHooks();
  await app.listen(config.port);
  logger.log(`${name} serving probes on port ${config.port}`, name);
}
