import { defineException } from '@platform/core';

export enum OnCallErrorCode {
  NotFound = 'not_found',
  ValidationFailed = 'validation_failed',
}

/**
 * Errors of the rosters API. Its routes are part of the escalation API of the document, so the
 * error envelope's `source_service` stays `escalation`.
 */
export const OnCallException = defineException<OnCallErrorCode>('escalation', {
  [OnCallErrorCode.NotFound]: 404,
  [OnCallErrorCode.ValidationFailed]: 422,
});

export const onCallNotFound = (what = 'Resource') =>
  new OnCallException(OnCallErrorCode.NotFound, `${what} not found`);

/** A 422 `validation_failed` naming fields, shaped like the global validation pipe's. */
export function onCallValidation(fields: Array<{ field: string; messages: string[] }>) {
  const summary = fields.map((f) => f.messages.join(', ')).join('; ');
  return new OnCallException(OnCallErrorCode.ValidationFailed, `Validation failed: ${summary}`, {
    details: { fields },
  });
}
