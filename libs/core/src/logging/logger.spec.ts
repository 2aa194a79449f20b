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

describe('JsonLogger redaction', () => {
  const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY2NvdW50LTEifQ.c2lnbmF0dXJlLW9mLXRoZS1qd3Q';
  const TOKEN = 'hq_pat_q2Vx8kP0mZr4tYwB7nLc1sHdJfA9eUoG3iK6vXyQ5';

  it('redacts secrets in the message, fields, nested objects and errors of every line', () => {
    const out = capture();
    const logger = JsonLogger.create('api', 'info', out.stream);
    logger.log(`opened /invite/abcdefghijklmnop with Bearer ${JWT}`, 'http');
    logger.warn({ message: 'login', body: { login: 'ada@example.com', password: 'hunter22' } });
    logger.error(
      `token ${TOKEN} refused`,
      `Error: token ${TOKEN} refused\n    at check (x.js:1:1)`,
      'auth',
    );
    logger.pino.error(
      {
        err: new Error(`signing with whsec_MfKQ9r1Eu0k4T2pZB8y6vqCJx3n=`),
        route: '/invite/:token',
      },
      'webhook failed',
    );
    logger.pino.info({ path: '/verify-email?token=abcdefghijklmnop' }, 'request');

    const text = out.lines().map((line) => JSON.stringify(line));
    for (const secret of [
      JWT,
      TOKEN,
      'hunter22',
      'abcdefghijklmnop',
      'MfKQ9r1Eu0k4T2pZB8y6vqCJx3n',
    ]) {
      expect(text.join('\n')).not.toContain(secret);
    }
    const [opened, login, refused, webhook, request] = out.lines();
    expect(opened.message).toBe('opened /invite/[redacted] with Bearer [redacted]');
    expect(login).toMatchObject({ body: { login: 'ada@example.com', password: '[redacted]' } });
    expect(refused).toMatchObject({
      message: 'token hq_pat_[redacted] refused',
      stack: 'Error: token hq_pat_[redacted] refused\n    at check (x.js:1:1)',
      context: 'auth',
    });
    expect(webhook).toMatchObject({
      message: 'webhook failed',
      route: '/invite/:token',
      err: { type: 'Error', message: 'signing with whsec_[redacted]' },
    });
    expect((webhook.err as { stack: string }).stack).toMatch(
      /^Error: signing with whsec_\[redacted\]\n/,
    );
    expect(request.path).toBe('/verify-email?token=[redacted]');
  });
});
