import { describe, expect, it } from '@jest/globals';
import { expectError } from '../support/clients/expect-error.js';

/** A 422 as the API answers it, with what a test may want to break in it. */
const answer = (overrides: Record<string, unknown> = {}, headers = { 'x-request-id': 'r-1' }) => ({
  status: 422,
  headers,
  body: {
    code: 'validation_failed',
    message: 'priority must be an integer',
    source_service: 'alerting',
    source_operation: 'alertRoutes.create',
    retryable: false,
    request_id: 'r-1',
    details: { fields: [{ field: 'priority', messages: ['must be an integer'] }] },
    ...overrides,
  },
});

describe('expectError', () => {
  it('passes the error envelope of the status, code and fields, and answers it', () => {
    const envelope = expectError(answer(), 422, 'validation_failed', ['priority']);
    expect(envelope.source_operation).toBe('alertRoutes.create');
  });

  it.each([
    ['another status', () => expectError(answer(), 400, 'validation_failed')],
    ['another code', () => expectError(answer(), 422, 'unprocessable_entity')],
    ['other fields', () => expectError(answer(), 422, 'validation_failed', ['name'])],
    ['an empty message', () => expectError(answer({ message: '' }), 422, 'validation_failed')],
    ['no retryable', () => expectError(answer({ retryable: undefined }), 422, 'validation_failed')],
    [
      'a request id other than the header',
      () => expectError(answer({}, { 'x-request-id': 'r-2' }), 422, 'validation_failed'),
    ],
  ])('fails on %s', (_what, check) => {
    expect(check).toThrow();
  });
});
