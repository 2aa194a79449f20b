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

  it('redacts passwords of URLs', () => {
    expect(redactUrl('redis://:s3cret@cache:6379/0')).toBe('redis://:***@cache:6379/0');
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/platform')).toBe(
      'postgres://postgres@127.0.0.1:5432/platform',
    );
  });
});
