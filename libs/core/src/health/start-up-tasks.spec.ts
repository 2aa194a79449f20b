import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { loadConfig } from '../config/app-config.js';
import { JsonLogger } from '../logging/logger.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { Dependencies } from './dependencies.js';
import { StartupTasks } from './start-up-tasks.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('StartupTasks', () => {
  it('runs an againWhenBack task once more per outage and per quick restart', async () => {
    Logger.overrideLogger(
      JsonLogger.create('test', 'error', new Writable({ write: (_c, _e, done) => done() })),
    );
    const dependencies = new Dependencies(loadConfig({}), new MetricsService());
    const tasks = new StartupTasks(dependencies);
    let runs = 0;
    await tasks.run(
      'schedule',
      async () => {
        runs += 1;
      },
      { againWhenBack: 'redis' },
    );
    expect(runs).toBe(1);
    dependencies.reportServerRun('redis', 'aaa');

    // A restart nobody took for an outage.
    dependencies.reportServerRun('redis', 'bbb');
    await settle();
    expect(runs).toBe(2);

    // An outage that was a restart: once when it answers, not again for the new run.
    dependencies.reportFailure('redis', new Error('connect ECONNREFUSED'));
    dependencies.reportSuccess('redis');
    dependencies.reportServerRun('redis', 'ccc');
    await settle();
    expect(runs).toBe(3);

    // Other dependencies are not its business.
    dependencies.reportFailure('database', new Error('connect ECONNREFUSED'));
    dependencies.reportSuccess('database');
    await settle();
    expect(runs).toBe(3);

    tasks.onApplicationShutdown();
    dependencies.onApplicationShutdown();
  });
});
