import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { type ArgumentsHost, Logger } from '@nestjs/common';
import { ErrorEnvelopeFilter } from './error-envelope.filter.js';

function httpHost() {
  const sent: { status?: number; body?: unknown } = {};
  const response = {
    headersSent: false,
    setHeader: () => undefined,
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
      return this;
    },
  };
  const request = {
    method: 'GET',
    path: '/notifications',
    context: { requestId: 'req-12345678', operation: 'notificationCenter.list' },
  };
  const host = {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  return { host, sent };
}

describe('error envelope filter', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('answers a value PostgreSQL refused with 400 and warns that a check is missing', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, sent } = httpHost();
    const refused = Object.assign(
      new Error('value "9223372036854776000" is out of range for type bigint'),
      { name: 'QueryFailedError', code: '22003', driverError: { code: '22003' } },
    );
    new ErrorEnvelopeFilter().catch(refused, host);
    expect(sent.status).toBe(400);
    expect(sent.body).toMatchObject({
      code: 'bad_request',
      source_operation: 'notificationCenter.list',
      request_id: 'req-12345678',
    });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain(
      'GET /notifications (notificationCenter.list): PostgreSQL refused a value of the request (SQLSTATE 22003: value "9223372036854776000" is out of range for type bigint)',
    );
    expect(error).not.toHaveBeenCalled();
  });

  it('logs an unexpected failure as an error and answers 500', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, sent } = httpHost();
    new ErrorEnvelopeFilter().catch(new TypeError('x is undefined'), host);
    expect(sent.status).toBe(500);
    expect(error).toHaveBeenCalledTimes(1);
  });
});
