import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { closedLocalPort } from './ports.js';

const run = promisify(execFile);

/** Resolves once something accepts TCP connections on the port, or rejects after `timeoutMs`. */
async function listening(port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const REDIS_PASSWORD = 'private-redis-password';

/**
 * A `redis-server` of a test's own on a free port, never the shared one: the test stops and
 * starts it to make an outage (the port then refuses connections), always on the same port.
 * It keeps nothing on disk, so a restart starts empty, as a flushed or failed-over Redis does.
 * ACL users (`addUser`) let a test break one client's writes (`refuseWrites`: NOPERM at once,
 * as a Redis that cannot take them) while other clients go on.
 */
export class PrivateRedis {
  private child: ChildProcess | null = null;
  private adminClient: Redis | null = null;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await closedLocalPort());
    await redis.start();
    return redis;
  }

  /** A Redis that is not running yet: its URL refuses connections until `start()`. */
  static async stopped(): Promise<PrivateRedis> {
    return new PrivateRedis(await closedLocalPort());
  }

  /** The URL of this server for `user` (made with `addUser`), or for the default user. */
  url(user?: string): string {
    return user
      ? `redis://${user}:${REDIS_PASSWORD}@127.0.0.1:${this.port}`
      : `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  async start(): Promise<void> {
    if (this.child) return;
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await listening(this.port);
  }

  /** Ends the server at once, as a crash would. */
  async stop(): Promise<void> {
    this.adminClient?.disconnect();
    this.adminClient = null;
    const child = this.child;
    if (!child) return;
    this.child = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  /**
   * Ends the server and starts a new, empty one on the same port at once: back within tens of
   * milliseconds, before clients retry their connections, so none of them is refused.
   */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** A user allowed every command, key and channel. */
  async addUser(user: string): Promise<void> {
    await this.admin().call(
      'ACL',
      'SETUSER',
      user,
      'on',
      `>${REDIS_PASSWORD}`,
      '~*',
      '&*',
      '+@all',
    );
  }

  /** `user` may read every key but write only keys matching `writable` (none by default). */
  async refuseWrites(user: string, writable: string[] = []): Promise<void> {
    await this.admin().call(
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
    await this.admin().call('ACL', 'SETUSER', user, 'resetkeys', '~*');
  }

  private admin(): Redis {
    this.adminClient ??= new Redis({ port: this.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    this.adminClient.on('error', () => undefined);
    return this.adminClient;
  }
}

/** Where the PostgreSQL server programs are (Debian keeps them per version). */
async function postgresBin(): Promise<string> {
  const root = '/usr/lib/postgresql';
  const versions = (await readdir(root)).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no PostgreSQL server programs installed');
  return join(root, versions[0], 'bin');
}

/**
 * A PostgreSQL server of a test's own (initdb into a temporary folder, a free port, trust
 * authentication, no fsync), so a test can stop and restart it for real, with the shutdown
 * messages clients see, without touching the shared server. As root the server runs as the
 * `postgres` user, which PostgreSQL requires.
 */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly folder: string,
    private readonly bin: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const folder = await mkdtemp(join(tmpdir(), 'pg-'));
    const server = new PrivatePostgres(await closedLocalPort(), folder, await postgresBin());
    if (process.getuid?.() === 0) await run('chown', ['postgres', folder]);
    await server.command('initdb', ['-D', server.data, '-A', 'trust', '-U', 'postgres']);
    await server.start();
    return server;
  }

  /** A URL of a database on this server (`postgres` exists; others are the test's to create). */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    await this.pgCtl(['start', '-w', '-l', join(this.folder, 'log'), '-o', this.options()]);
  }

  /** A fast shutdown: open connections get "terminating connection due to administrator command". */
  async stop(): Promise<void> {
    await this.pgCtl(['stop', '-w', '-m', 'fast']);
  }

  async restart(): Promise<void> {
    await this.pgCtl(['restart', '-w', '-m', 'fast', '-o', this.options()]);
  }

  async destroy(): Promise<void> {
    await this.pgCtl(['stop', '-w', '-m', 'immediate']).catch(() => undefined);
    await rm(this.folder, { recursive: true, force: true });
  }

  private get data(): string {
    return join(this.folder, 'data');
  }

  private options(): string {
    return `-p ${this.port} -k ${this.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  }

  private pgCtl(args: string[]): Promise<unknown> {
    return this.command('pg_ctl', ['-D', this.data, ...args]);
  }

  private async command(program: string, args: string[]): Promise<void> {
    const path = join(this.bin, program);
    if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', path, ...args]);
    else await run(path, args);
  }
}
