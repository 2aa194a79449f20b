import { expect } from '@jest/globals';
import type { ErrorEnvelope } from '@platform/core';

/** The part of a response an error assertion reads. */
export interface ErrorResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * Asserts that `res` is the error envelope with this status and code: a message, the module and
 * operation that failed, whether a retry may succeed, and the request id the X-Request-Id header
 * carries. With `fields`, `details.fields` names exactly those fields, in that order (the 422
 * of input validation and of the services' own field checks). Returns the envelope for further
 * checks of its message or details.
 */
export function expectError(
  res: ErrorResponse,
  status: number,
  code: string,
  fields?: string[],
): ErrorEnvelope {
  // Status and code together, so a failure shows the whole answer.
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { code } });
  const envelope = res.body as ErrorEnvelope;
  expect(envelope).toMatchObject({
    message: expect.any(String),
    source_service: expect.any(String),
    source_operation: expect.any(String),
    retryable: expect.any(Boolean),
    request_id: res.headers['x-request-id'],
  });
  expect(envelope.message).not.toBe('');
  if (fields) expect(fieldNames(envelope.details)).toEqual(fields);
  return envelope;
}

function fieldNames(details: unknown): string[] {
  const fields = (details as { fields?: Array<{ field: string }> } | undefined)?.fields ?? [];
  return fields.map((f) => f.field);
}
