import { describe, expect, it } from '@jest/globals';
import type { RequestWithContext } from '../context/request-context.js';
import { AppException } from './app-exception.js';
import { databaseInputError } from './database-input.js';
import { errorEnvelope, toAppException } from './error-response.js';

const request = (multiErrorEnvelope?: boolean) =>
  ({
    method: 'POST',
    path: '/projects/p/alerts',
    context: {
      requestId: 'req-12345678',
      method: 'POST',
      path: '/projects/p/alerts',
      operation: 'alertIngest.ingest',
      apiVersion: 1,
      multiErrorEnvelope,
    },
  }) as unknown as RequestWithContext;

describe('error envelope', () => {
  const exception = new AppException(422, 'malformed_payload', 'no alerts', {
    service: 'alerting',
  });
  const general = {
    code: 'malformed_payload',
    message: 'no alerts',
    source_service: 'alerting',
    source_operation: 'alertIngest.ingest',
    retryable: false,
    request_id: 'req-12345678',
  };

  it('has no errors list on ordinary routes', () => {
    expect(errorEnvelope(exception, request())).toEqual(general);
  });

  it('adds the errors list on multi-error routes, keeping every general field', () => {
    expect(errorEnvelope(exception, request(true))).toEqual({
      ...general,
      errors: [{ code: 'malformed_payload', message: 'no alerts', status: 422 }],
    });
  });

  it('lists the errors the exception names', () => {
    const errors = [
      { code: 'missing_severity', message: 'alerts[0]: no severity', status: 422, index: 0 },
      { code: 'missing_fingerprint', message: 'alerts[1]: no fingerprint', status: 422, index: 1 },
    ];
    const many = new AppException(502, 'nothing_processed', 'none processed', { errors });
    expect(errorEnvelope(many, request(true)).errors).toEqual(errors);
    expect(errorEnvelope(many, request())).not.toHaveProperty('errors');
  });
});

describe('errors mapped from what a request sent', () => {
  const plain = { method: 'POST', path: '/x' } as unknown as RequestWithContext;

  it('answers a body that fails to decompress with 400, whatever zlib calls it', () => {
    const zlibError = Object.assign(new Error('incorrect header check'), {
      errno: -3,
      code: 'Z_DATA_ERROR',
      expose: true,
      statusCode: 400,
      status: 400,
    });
    expect(toAppException(zlibError, plain)).toMatchObject({
      status: 400,
      code: 'bad_request',
      message: 'The request body could not be decompressed as its Content-Encoding says',
    });
  });

  it.each([
    ['22P02', 'invalid input syntax for type uuid: "---"'],
    ['22003', 'value "9223372036854776000" is out of range for type bigint'],
    ['22021', 'invalid byte sequence for encoding "UTF8": 0x00'],
    ['22001', 'value too long for type character varying(100)'],
    ['2201X', 'OFFSET must not be negative'],
    ['2201W', 'LIMIT must not be negative'],
    ['54001', 'stack depth limit exceeded'],
  ])('answers PostgreSQL refusing a value (%s) with 400 bad_request', (code, message) => {
    const queryFailed = Object.assign(new Error(message), {
      name: 'QueryFailedError',
      code,
      driverError: { code, message },
    });
    const exception = toAppException(queryFailed, plain);
    expect(exception).toMatchObject({ status: 400, code: 'bad_request', retryable: false });
    expect(exception.message).not.toContain(message);
    expect(databaseInputError(queryFailed)).toEqual({ sqlState: code, message });
    const fromPg = Object.assign(new Error(message), { code, severity: 'ERROR' });
    expect(toAppException(fromPg, plain).status).toBe(400);
  });

  it('keeps other database errors and other coded errors a 500', () => {
    const deadlock = Object.assign(new Error('deadlock detected'), {
      code: '40P01',
      severity: 'ERROR',
    });
    expect(toAppException(deadlock, plain).status).toBe(500);
    const nodeError = Object.assign(new Error('no such file'), { code: '22P02' });
    expect(toAppException(nodeError, plain).status).toBe(500);
  });

  it('still answers an outage with 503', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), {
      code: '57P01',
      severity: 'FATAL',
    });
    expect(toAppException(refused, plain)).toMatchObject({
      status: 503,
      code: 'service_unavailable',
    });
  });
});
