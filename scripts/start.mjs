#!/usr/bin/env node
// `npm start`: applies pending migrations, then runs the API and the worker as two processes
// with their logs on stdout. SIGINT and SIGTERM are passed to both, which stop gracefully; the
// launcher exits 0 when both did. If either process ends on its own, the launcher says which
// and how, stops the other, and exits 1. Entry points can be overridden for tests.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const entries = {
  migrate: process.env.START_MIGRATE_ENTRY ?? `${root}dist/apps/migrate/main.js`,
  api: process.env.START_API_ENTRY ?? `${root}dist/apps/api/main.js`,
  worker: process.env.START_WORKER_ENTRY ?? `${root}dist/apps/worker/main.js`,
};

function log(level, message, fields = {}) {
  process.stdout.write(
    `${JSON.stringify({ level, time: new Date().toISOString(), service: 'launcher', message, ...fields })}\n`,
  );
}

function run(name) {
  const child = spawn(process.execPath, [entries[name]], { stdio: 'inherit' });
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ name, code, signal })),
  );
  return { name, child, exited };
}

function describe({ code, signal }) {
  return signal ? `signal ${signal}` : `code ${code}`;
}

const migration = await run('migrate').exited;
if (migration.code !== 0) {
  log('fatal', `migrate failed (${describe(migration)}); not starting the api and the worker`);
  process.exit(1);
}

const processes = [run('api'), run('worker')];
let stopping = null;

function stopAll(signal) {
  for (const { child } of processes) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = signal;
    log('info', `${signal}: stopping the api and the worker`);
    stopAll('SIGTERM');
  });
}

const first = await Promise.race(processes.map((p) => p.exited));
if (!stopping) {
  const other = processes.find((p) => p.name !== first.name);
  log('fatal', `${first.name} exited unexpectedly (${describe(first)}); stopping ${other.name}`, {
    process: first.name,
    code: first.code,
    signal: first.signal,
  });
  stopping = 'failure';
  stopAll('SIGTERM');
  await other.exited;
  process.exit(1);
}

const results = await Promise.all(processes.map((p) => p.exited));
const failed = results.filter((r) => r.code !== 0);
for (const result of failed) {
  log('error', `${result.name} did not stop cleanly (${describe(result)})`, {
    process: result.name,
    code: result.code,
    signal: result.signal,
  });
}
process.exit(failed.length === 0 ? 0 : 1);
