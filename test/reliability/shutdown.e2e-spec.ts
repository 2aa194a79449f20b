import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JobName, QueueName } from '@platform/queue';
import {
  buildDeployables,
  createTestDatabase,
  deleteRedisPrefix,
  DeployableProcess,
  type DeployablesBuild,
  freeLocalPorts,
  redisUrl,
  SmtpSink,
  type TestDatabase,
  testConfig,
  eventually,
} from '@platform/testing';
import { Queue } from 'bullmq';

const LAUNCHER = fileURLToPath(new URL('../../scripts/start.mjs', import.meta.url));

async function status(url: string): Promise<{ status: number; body: unknown } | 'refused'> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return { status: response.status, body: await response.json() };
  } catch {
    return 'refused';
  }
}

/**
 * An HTTP request whose body arrives in two parts: in flight between `open()` and `finish()`.
 * `answer` resolves with the raw response once the server sent it and closed.
 */
function slowRequest(port: number, path: string, body: string) {
  const socket: Socket = connect({ port, host: '127.0.0.1' });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const answer = new Promise<string>((resolve) =>
    socket.on('close', () => resolve(Buffer.concat(chunks).toString())),
  );
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
  );
  return { answer, finish: () => socket.write(body.slice(half)) };
}

/** The child processes of `pid`, with their command lines. */
function children(pid: number): Array<{ pid: number; command: string }> {
  const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)]).toString();
  return out
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((child) => child > 0)
    .map((child) => ({
      pid: child,
      command: readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' '),
    }));
}

/**
 * SIGTERM ends every process gracefully: not ready first, in-flight work finished, exit 0.
 * `npm start`'s launcher passes signals on and, when one process dies on its own, says which,
 * stops the other and exits 1.
 */
describe('graceful stops', () => {
  let build: DeployablesBuild;
  let database: TestDatabase;
  let sink: SmtpSink;
  const prefixes: string[] = [];

  const config = () => {
    const made = testConfig(database, { smtpUrl: sink.url });
    prefixes.push(made.redisPrefix);
    return made;
  };

  beforeAll(async () => {
    build = buildDeployables();
    database = await createTestDatabase();
    sink = await SmtpSink.start();
  }, 120_000);

  afterAll(async () => {
    sink?.releaseReplies();
    await sink?.close();
    await database?.drop();
    for (const prefix of prefixes) await deleteRedisPrefix(prefix);
    await build?.remove();
  });

  it('API: not ready at once, serving while the delay lasts, in-flight request answered, exit 0', async () => {
    const [port] = await freeLocalPorts(1);
    const base = `http://127.0.0.1:${port}`;
    const api = await DeployableProcess.start(build.entry('api'), config(), {
      env: { PORT: String(port), SHUTDOWN_DELAY_SECONDS: '1' },
      ready: { url: `${base}/health/ready` },
    });
    const inFlight = slowRequest(
      port,
      '/login',
      JSON.stringify({ login: 'nobody@stop.example', password: 'not the password at all' }),
    );
    api.signal('SIGTERM');
    // Not ready at once, while still answering everything else.
    await eventually(async () => {
      const ready = await status(`${base}/health/ready`);
      return ready !== 'refused' && ready.status === 503;
    }, 'not ready');
    expect(await status(`${base}/health/ready`)).toMatchObject({
      status: 503,
      body: {
        code: 'service_unavailable',
        details: { checks: { process: { status: 'down', error: 'shutting down' } } },
      },
    });
    expect(await status(`${base}/health/live`)).toMatchObject({ status: 200 });
    // Then it stops listening, but waits for the request in flight.
    await eventually(async () => (await status(`${base}/health/live`)) === 'refused', 'refusal');
    expect(api.exited).toBe(false);
    inFlight.finish();
    const answer = await inFlight.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(await api.ended()).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('worker: not ready while it finishes the job in flight, then exit 0', async () => {
    const [port] = await freeLocalPorts(1);
    const base = `http://127.0.0.1:${port}`;
    const workerConfig = config();
    const worker = await DeployableProcess.start(build.entry('worker'), workerConfig, {
      env: { WORKER_PORT: String(port) },
      ready: { url: `${base}/health/ready` },
    });
    const queue = new Queue(QueueName.Deliveries, {
      connection: { url: redisUrl() },
      prefix: workerConfig.redisPrefix,
    });
    try {
      sink.holdReplies = true;
      const job = await queue.add(JobName.SendEmail, {
        to: 'ops@stop.example',
        subject: 'in flight at SIGTERM',
        text: 'the worker must finish this before it exits',
      });
      await eventually(
        async () => sink.messages.some((m) => m.subject === 'in flight at SIGTERM'),
        'the e-mail in flight',
      );
      worker.signal('SIGTERM');
      await eventually(async () => {
        const ready = await status(`${base}/health/ready`);
        return ready !== 'refused' && ready.status === 503;
      }, 'not ready');
      expect(worker.exited).toBe(false);
      sink.releaseReplies();
      expect(await worker.ended()).toEqual({ code: 0, signal: null });
      expect(await (await queue.getJob(job.id!))!.getState()).toBe('completed');
    } finally {
      sink.releaseReplies();
      await queue.close();
    }
  }, 60_000);

  async function launch(): Promise<{ launcher: DeployableProcess; api: number; worker: number }> {
    const [apiPort, workerPort] = await freeLocalPorts(2);
    const launcher = await DeployableProcess.start(LAUNCHER, config(), {
      env: {
        START_MIGRATE_ENTRY: build.entry('migrate'),
        START_API_ENTRY: build.entry('api'),
        START_WORKER_ENTRY: build.entry('worker'),
        PORT: String(apiPort),
        WORKER_PORT: String(workerPort),
        SHUTDOWN_DELAY_SECONDS: '0',
      },
      ready: { logLine: '"worker started"' },
    });
    await eventually(async () => {
      const ready = await status(`http://127.0.0.1:${apiPort}/health/ready`);
      return ready !== 'refused' && ready.status === 200;
    }, 'the API ready');
    const processes = children(launcher.pid!);
    const pidOf = (app: string) => processes.find((p) => p.command.includes(`/apps/${app}/`))!.pid;
    return { launcher, api: pidOf('api'), worker: pidOf('worker') };
  }

  it('launcher: a process that dies on its own is named, the other stopped, exit 1', async () => {
    const { launcher, api, worker } = await launch();
    process.kill(worker, 'SIGKILL');
    expect(await launcher.ended()).toEqual({ code: 1, signal: null });
    const fatal = launcher.output.find((line) => line.includes('exited unexpectedly'));
    expect(JSON.parse(fatal!)).toMatchObject({
      level: 'fatal',
      service: 'launcher',
      process: 'worker',
      signal: 'SIGKILL',
      message: 'worker exited unexpectedly (signal SIGKILL); stopping api',
    });
    expect(() => process.kill(api, 0)).toThrow();
  }, 120_000);

  it('launcher: SIGTERM is passed to both, which stop gracefully, exit 0', async () => {
    const { launcher, api, worker } = await launch();
    launcher.signal('SIGTERM');
    expect(await launcher.ended()).toEqual({ code: 0, signal: null });
    for (const pid of [api, worker]) expect(() => process.kill(pid, 0)).toThrow();
    expect(
      launcher.output.some((line) => line.includes('SIGTERM: stopping the api and the worker')),
    ).toBe(true);
    expect(launcher.output.filter((line) => line.includes('"SIGTERM: stopped"'))).toHaveLength(2);
  }, 120_000);
});
