import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/** A local port nothing listens on, so connecting to it is refused at once. */
export async function closedLocalPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Ports for processes that take theirs from the environment are picked here: below the
 * ephemeral range (32768–60999 on Linux), where the ports of `listen(0)` and of outgoing
 * connections come from. Test runs sharing a host open ephemeral listeners by the thousand
 * (supertest opens one per request), and one of them could take a port between the check here
 * and the process binding it, seconds later.
 */
const PICKED_PORTS = { from: 20_000, to: 32_767 };

/**
 * `count` distinct ports nothing listens on, checked as the API binds its port (every
 * address), for processes that take their port from the environment.
 */
export async function freeLocalPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = randomInt(PICKED_PORTS.from, PICKED_PORTS.to + 1);
    if (!ports.includes(port) && (await canListen(port))) ports.push(port);
  }
  return ports;
}

function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}
