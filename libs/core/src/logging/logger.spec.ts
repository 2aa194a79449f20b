import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { RequestContexts } from '../context/request-context.js';
import { JsonLogger } from './logger.js';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('JsonLogger', () => {
  it('writes one JSON object per line with level, service, context and message', () => {
    const out = capture();
    JsonLogger.create('api', 'info', out.stream).log('hello', 'boot');
    expect(out.lines()).toEqual([
      expect.objectContaining({ level: 'info', service: 'api', context: 'boot', message: 'hello' }),
    ]);
  });

  it('carries the request id of the request being served', () => {
    const out = capture();
    const logger = JsonLogger.create('api', 'info', out.stream);
    RequestContexts.run(
      { requestId: 'req-123456789', method: 'GET', path: '/', apiVersion: 1 },
      () => logger.warn('inside'),
    );
    logger.warn('outside');
    const [inside, outside] = out.lines();
    expect(inside).toMatchObject({ level: 'warn', message: 'inside', request_id: 'req-123456789' });
    expect(outside).not.toHaveProperty('request_id');
  });

  it('keeps the stack of an error out of the message', () => {
    const out = capture();
    JsonLogger.create('api', 'info', out.stream).error('failed', 'Error: x\n    at y.ts:1', 'http');
    expect(out.lines()[0]).toMatchObject({
      level: 'error',
      message: 'failed',
      context: 'http',
      stack: 'Error: x\n    at y.ts:1',
    });
  });

  it('drops lines below the configured level', () => {
    const out = capture();
    const logger = JsonLogger.create('api', 'warn', out.stream);
    logger.log('quiet');
    logger.debug('quieter');
    logger.error('loud');
    expect(out.lines().map((l) => l.message)).toEqual(['loud']);
  });
});
