import { NestFactory } from '@nestjs/core';
import { type DynamicModule } from '@nestjs/common';
import { exitGracefullyOnSignals, JsonLogger, loadConfigOrExit } from '@platform/core';
import { OperatorModule } from './operator.module.js';

/**
 * Starts an operator process: probes and metrics on PORT, graceful shutdown on SIGTERM (not
 * ready, then the runtime releases its lease and stops its reconcilers, then exit 0). Operators
 * sign nothing, so they run without SECRET_KEY.
 */
export async function bootstrapOperator(
  name: string,
  imports: DynamicModule['imports'] = [],
): Promise<void> {
  const config = loadConfigOrExit(process.env, { usesSecretKey: false });
  const logger = JsonLogger.create(name, config.logLevel);
  const app = await NestFactory.create(OperatorModule.forRoot(config, imports), { logger });
  exitGracefullyOnSignals(app, {
    logger,
    name,
    delayMs: 0,
    timeoutMs: config.shutdownTimeoutSeconds * 1000,
  });
  await app.listen(config.port);
  logger.log(`${name} serving probes on port ${config.port}`, name);
}
