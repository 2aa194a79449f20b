import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { Dependencies } from '@platform/core';
import type { Redis } from 'ioredis';
import { redisRunId, watchServerRun } from './redis-server-run.js';

const INFO = (runId: string) =>
  [
    '# Server',
    'redis_version:7.0.15',
    'redis_mode:standalone',
    `run_id:${runId}`,
    'tcp_port:6379',
    '',
  ].join('\r\n');

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A client that emits 'ready' when told and answers INFO with the server run of the moment. */
function fakeClient(): { redis: Redis; restart: (runId: string) => void } {
  const client = new EventEmitter() as EventEmitter & { info: () => Promise<string> };
  let runId = '';
  client.info = () => Promise.resolve(INFO(runId));
  return {
    redis: client as unknown as Redis,
    restart: (next) => {
      runId = next;
      client.emit('ready');
    },
  };
}

describe('Redis server runs', () => {
  it('reads the run_id of INFO server', () => {
    expect(redisRunId(INFO('4f1c0e9a7b'))).toBe('4f1c0e9a7b');
    expect(redisRunId('# Server\r\nredis_version:7.0.15\r\n')).toBeNull();
  });

  it('reports the run behind the client each time it is ready', async () => {
    const reported: Array<[string, string]> = [];
    const dependencies = {
      reportServerRun: (name: string, runId: string) => reported.push([name, runId]),
    } as unknown as Dependencies;
    const { redis, restart } = fakeClient();
    watchServerRun(redis, dependencies);
    restart('aaa');
    await settle();
    restart('aaa');
    await settle();
    restart('bbb');
    await settle();
    expect(reported).toEqual([
      ['redis', 'aaa'],
      ['redis', 'aaa'],
      ['redis', 'bbb'],
    ]);
  });
});
