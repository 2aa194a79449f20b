import { afterEach, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import net from 'node:net';
import { unavailableDependency } from '@platform/core';
import { deferredConnectionDataSource } from './deferred-connection.js';

/** A PostgreSQL backend message: type byte, length, body. */
function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** An ErrorResponse as a fast shutdown sends it to every backend. */
function adminShutdown(): Buffer {
  const field = (code: string, value: string) => Buffer.from(`${code}${value}\0`, 'utf8');
  return message(
    'E',
    Buffer.concat([
      field('S', 'FATAL'),
      field('V', 'FATAL'),
      field('C', '57P01'),
      field('M', 'terminating connection due to administrator command'),
      Buffer.from([0]),
    ]),
  );
}

/**
 * A server that accepts the start-up of every connection and, in the same TCP segment as its
 * ReadyForQuery, ends it the way PostgreSQL does when it stops: the connection is handed out
 * by the pool and killed before anyone has had a chance to listen to it.
 */
async function serverStoppingAsConnectionsOpen(): Promise<net.Server> {
  const server = net.createServer((socket) => {
    socket.once('data', () => {
      const authenticationOk = message('R', Buffer.from([0, 0, 0, 0]));
      const readyForQuery = message('Z', Buffer.from('I'));
      socket.end(Buffer.concat([authenticationOk, readyForQuery, adminShutdown()]));
    });
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

describe('deferredConnectionDataSource', () => {
  let server: net.Server | undefined;
  afterEach(() => {
    server?.close();
  });

  it('answers a connection killed as it is handed out as the database being unavailable, without crashing', async () => {
    server = await serverStoppingAsConnectionsOpen();
    const { port } = server.address() as net.AddressInfo;
    const url = `postgres://postgres@127.0.0.1:${port}/platform`;
    const reported: Error[] = [];
    const dataSource = deferredConnectionDataSource({ type: 'postgres', url }, (error) =>
      reported.push(error),
    );
    await dataSource.initialize();
    const uncaught: Error[] = [];
    const onUncaught = (error: Error) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      // A transaction takes its connection through TypeORM's query runner, which listens to
      // the connection only a promise turn after the pool handed it out.
      const attempts = await Promise.allSettled(
        Array.from({ length: 5 }, () =>
          dataSource.transaction((manager) => manager.query('SELECT 1')),
        ),
      );
      // Each request then fails as the database's (503), whichever way its connection died.
      expect(
        attempts.map((attempt) =>
          attempt.status === 'rejected' ? unavailableDependency(attempt.reason) : 'fulfilled',
        ),
      ).toEqual(Array(5).fill('database'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(uncaught).toEqual([]);
      expect(reported.length).toBeGreaterThan(0);
      expect(reported[0]).toMatchObject({ code: '57P01' });
    } finally {
      process.off('uncaughtException', onUncaught);
      await dataSource.destroy().catch(() => undefined);
    }
  });
});
