import { describe, expect, it } from '@jest/globals';
import type { RequestWithContext } from '../context/request-context.js';
import { AppException } from './app-exception.js';
import { errorEnvelope } from './error-response.js';

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
