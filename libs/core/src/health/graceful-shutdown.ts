import type { Server, ServerResponse } from 'node:http';
import type { INestApplication, INestApplicationContext, LoggerService } from '@nestjs/common';
import { HealthRegistry } from './health.registry.js';

export interface GracefulShutdownOptions {
  logger: LoggerService;
  /** The log context, e.g. the app's name. */
  name: string;
  /** How long the process keeps serving while it reports not ready. */
  delayMs: number;
  /** The most the whole stop may take; past it the process exits 1. */
  timeoutMs: number;
  /**
   * Another application context of the process (the worker's jobs), closed first, while the
   * HTTP server still answers its probes (not ready) and metrics.
   */
  closeFirst?: INestApplicationContext;
  /** Exit code for tests: the default ends the process. */
  exit?: (code: number) => void;
}

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Ends the process gracefully on SIGTERM or SIGINT, in this order:
 * 1. it reports not ready (`/health/ready` 503) and keeps serving for `delayMs`, so load
 *    balancers stop routing to it first;
 * 2. `closeFirst` (the worker's jobs) closes: job runners stop taking jobs and finish the
 *    running ones, sweepers finish their sweep;
 * 3. it stops accepting connections, answers every further response with
 *    `Connection: close`, and waits for the requests in flight;
 * 4. it closes the application: sockets close, then the PostgreSQL and Redis connections;
 * 5. it exits 0.
 * Everything is bounded by `timeoutMs`: past it, the process logs what was unfinished and exits
 * 1. A second signal while stopping changes nothing.
 */
export function exitGracefullyOnSignals(
  app: INestApplication,
  options: GracefulShutdownOptions,
): void {
  const server = app.getHttpServer() as Server;
  const inFlight = trackRequests(server);
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => {
      options.logger.error(
        `${signal}: not stopped within ${options.timeoutMs} ms (${inFlight.count()} requests in flight); exiting`,
        options.name,
      );
      exit(1);
    }, options.timeoutMs);
    timer.unref();
    void drain(app, server, inFlight, options, signal).then(
      () => {
        clearTimeout(timer);
        exit(0);
      },
      (error: Error) => {
        clearTimeout(timer);
        options.logger.error(`${signal}: stopping failed: ${error.message}`, options.name);
        exit(1);
      },
    );
  };
  for (const signal of SIGNALS) process.once(signal, () => stop(signal));
}

async function drain(
  app: INestApplication,
  server: Server,
  inFlight: RequestTracker,
  options: GracefulShutdownOptions,
  signal: NodeJS.Signals,
): Promise<void> {
  app.get(HealthRegistry).beginDrain();
  options.logger.log(`${signal}: not ready; stopping in ${options.delayMs} ms`, options.name);
  await sleep(options.delayMs);
  await options.closeFirst?.close();
  inFlight.close();
  server.close();
  server.closeIdleConnections();
  while (inFlight.count() > 0) {
    await sleep(20);
    server.closeIdleConnections();
  }
  await app.close();
  options.logger.log(`${signal}: stopped`, options.name);
}

interface RequestTracker {
  count(): number;
  /** From now on every answer closes its connection, those in flight included. */
  close(): void;
}

function trackRequests(server: Server): RequestTracker {
  const active = new Set<ServerResponse>();
  let closing = false;
  const closeAfter = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  };
  server.on('request', (_request, response: ServerResponse) => {
    active.add(response);
    if (closing) closeAfter(response);
    response.once('close', () => active.delete(response));
  });
  return {
    count: () => active.size,
    close: () => {
      closing = true;
      for (const response of active) closeAfter(response);
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
