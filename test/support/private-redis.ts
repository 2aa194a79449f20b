import { type ChildProcess, spawn } from 'node:child_process';
import { closedLocalPort } from '@platform/testing';
import { Redis } from 'ioredis';

const PASSWORD = 'private-redis-password';

/**
 * A `redis-server` of one test file's own, on a free port, without persistence. A test may
 * break it as it likes (the shared Redis is never touched): `refuseWrites` makes one ACL user's
 * writes fail at once (NOPERM), as a Redis that cannot take them would, while other users go
 * on; `stop` ends the server.
 */
export class PrivateRedis {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly admin: Redis,
  ) {}

  static async start(): Promise<PrivateRedis> {
    const port = await closedLocalPort();
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const admin = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    admin.on('error', () => undefined);
    for (let attempt = 0; ; attempt += 1) {
      try {
        await admin.connect();
        await admin.ping();
        break;
      } catch (error) {
        admin.disconnect();
        if (attempt >= 100 || child.exitCode !== null) {
          child.kill('SIGKILL');
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return new PrivateRedis(child, port, admin);
  }

  /** The URL of this server for `user` (made with `addUser`), or the default user. */
  url(user?: string): string {
    return user
      ? `redis://${user}:${PASSWORD}@127.0.0.1:${this.port}`
      : `redis://127.0.0.1:${this.port}`;
  }

  /** A user allowed every command, key and channel. */
  async addUser(user: string): Promise<void> {
    await this.admin.call('ACL', 'SETUSER', user, 'on', `>${PASSWORD}`, '~*', '&*', '+@all');
  }

  /** `user` may read every key but write only keys matching `writable` (none by default). */
  async refuseWrites(user: string, writable: string[] = []): Promise<void> {
    await this.admin.call(
      'ACL',
      'SETUSER',
      user,
      'resetkeys',
      '%R~*',
      ...writable.map((pattern) => `~${pattern}`),
    );
  }

  /** `user` may write every key again. */
  async allowWrites(user: string): Promise<void> {
    await this.admin.call('ACL', 'SETUSER', user, 'resetkeys', '~*');
  }

  async stop(): Promise<void> {
    this.admin.disconnect();
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}
