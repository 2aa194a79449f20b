import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { loadConfig } from '../config/app-config.js';
import { JsonLogger } from '../logging/logger.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { Dependencies, DependencyUnavailableError, redactUrl } from './dependencies.js';

/** A Dependencies whose log lines are collected as parsed JSON. */
function withLog(): { dependencies: Dependencies; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  Logger.overrideLogger(JsonLogger.create('test', 'info', sink));
  const config = loadConfig({
    DATABASE_URL: 'postgres://app:hunter2@db.internal:5432/platform',
    REDIS_URL: 'redis://127.0.0.1:6390',
  });
  return { dependencies: new Dependencies(config, new MetricsService()), lines };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Dependencies', () => {
  it('logs one JSON line naming the variable per outage, and one when it is back', async () => {
    const { dependencies, lines } = withLog();
    const changes: Array<[string, boolean]> = [];
    dependencies.onChange((name, up) => changes.push([name, up]));
    dependencies.setProbe('database', () => Promise.reject(new Error('connect ECONNREFUSED')));
    for (let n = 0; n < 5; n += 1) {
      dependencies.reportFailure('database', new Error('connect ECONNREFUSED'));
      await settle();
    }
    expect(dependencies.isUp('database')).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      dependency: 'database',
      variable: 'DATABASE_URL',
      error: 'connect ECONNREFUSED',
    });
    // The password never reaches the log.
    expect(lines[0].message).toContain('DATABASE_URL=postgres://app:***@db.internal:5432');
    expect(JSON.stringify(lines)).not.toContain('hunter2');

    dependencies.reportSuccess('database');
    dependencies.reportSuccess('database');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      level: 'info',
      dependency: 'database',
      variable: 'DATABASE_URL',
    });
    expect(changes).toEqual([
      ['database', false],
      ['database', true],
    ]);
    dependencies.onApplicationShutdown();
  });

  it('takes a failure for an outage only when the probe fails too', async () => {
    const { dependencies, lines } = withLog();
    dependencies.setProbe('redis', () => Promise.resolve());
    dependencies.reportFailure('redis', new Error('Command timed out'));
    await settle();
    expect(dependencies.isUp('redis')).toBe(true);
    expect(lines).toHaveLength(0);
  });

  it('fails fast while down, and notices recovery by probing', async () => {
    const { dependencies } = withLog();
    let answers = false;
    dependencies.setProbe('redis', async () => {
      if (!answers) throw new Error('connect ECONNREFUSED');
    });
    await expect(dependencies.check('redis')).rejects.toThrow('ECONNREFUSED');
    expect(() => dependencies.assertUp('redis')).toThrow(DependencyUnavailableError);
    answers = true;
    await expect(dependencies.check('redis')).resolves.toBeUndefined();
    expect(() => dependencies.assertUp('redis')).not.toThrow();
    dependencies.onApplicationShutdown();
  });

  it('takes a new server run for a restart: logged once, back-listeners told once', () => {
    const { dependencies, lines } = withLog();
    const back: string[] = [];
    dependencies.onBack((name) => back.push(name));
    dependencies.reportServerRun('redis', 'aaa');
    dependencies.reportServerRun('redis', 'aaa');
    expect(lines).toHaveLength(0);
    expect(back).toEqual([]);

    // A restart too quick for an outage: only the run tells.
    dependencies.reportServerRun('redis', 'bbb');
    dependencies.reportServerRun('redis', 'bbb');
    expect(back).toEqual(['redis']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      message: 'Redis restarted (run_id aaa → bbb): re-running start-up tasks',
      dependency: 'redis',
      previousRunId: 'aaa',
      runId: 'bbb',
    });
    // Not an outage line: those name the variable, a start and an end each.
    expect(lines[0]).not.toHaveProperty('variable');
    dependencies.onApplicationShutdown();
  });

  it('tells back-listeners once when a confirmed outage was a restart', async () => {
    const { dependencies, lines } = withLog();
    const back: string[] = [];
    dependencies.onBack((name) => back.push(name));
    dependencies.reportServerRun('redis', 'aaa');
    dependencies.setProbe('redis', () => Promise.reject(new Error('connect ECONNREFUSED')));
    dependencies.reportFailure('redis', new Error('connect ECONNREFUSED'));
    await settle();
    expect(dependencies.isUp('redis')).toBe(false);
    dependencies.reportSuccess('redis');
    dependencies.reportServerRun('redis', 'bbb');
    expect(back).toEqual(['redis']);
    expect(lines.map((line) => line.level)).toEqual(['error', 'info', 'warn']);
    expect(lines[2].message).toBe(
      'Redis restarted (run_id aaa → bbb) during the outage; start-up tasks re-ran when it answered',
    );

    // The next quick restart is told again.
    dependencies.reportServerRun('redis', 'ccc');
    expect(back).toEqual(['redis', 'redis']);
    dependencies.onApplicationShutdown();
  });

  it('ends an outage not yet seen to end when a server run answers', async () => {
    const { dependencies } = withLog();
    const back: string[] = [];
    dependencies.onBack((name) => back.push(name));
    dependencies.reportServerRun('redis', 'aaa');
    dependencies.reportFailure('redis', new Error('connect ECONNREFUSED'));
    expect(dependencies.isUp('redis')).toBe(false);
    dependencies.reportServerRun('redis', 'bbb');
    expect(dependencies.isUp('redis')).toBe(true);
    expect(back).toEqual(['redis']);
    dependencies.onApplicationShutdown();
  });

  it('redacts passwords of URLs', () => {
    expect(redactUrl('redis://:s3cret@cache:6379/0')).toBe('redis://:***@cache:6379/0');
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/platform')).toBe(
      'postgres://postgres@127.0.0.1:5432/platform',
    );
  });
});
