import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import {
  exitGracefullyOnSignals,
  JsonLogger,
  loadConfigOrExit,
  ProbesModule,
} from '@platform/core';
import { WorkerModule } from './worker.module.js';

const config = loadConfigOrExit();
const logger = JsonLogger.create('worker', config.logLevel);
try {
  const worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    logger,
  });
  // The probes and metrics on WORKER_PORT, over the worker's own registry: no other route.
  const probes = await NestFactory.create(ProbesModule.serving(worker), {
    logger,
    bodyParser: false,
  });
  // Nothing routes traffic to a worker: no delay between "not ready" and stopping.
  exitGracefullyOnSignals(probes, {
    logger,
    name: 'worker',
    delayMs: 0,
    timeoutMs: config.shutdownTimeoutSeconds * 1000,
    closeFirst: worker,
  });
  await probes.listen(config.workerPort);
  const { port } = (probes.getHttpServer() as Server).address() as AddressInfo;
  logger.log({ message: 'worker started', port }, 'worker');
} catch (error) {
  logger.fatal(error instanceof Error ? error.message : String(error), 'worker');
  process.exit(1);
}
