import { defineException } from '@platform/core';

export enum AlertingErrorCode {
  NotFound = 'not_found',
  ValidationFailed = 'validation_failed',
  MalformedPayload = 'malformed_payload',
  NothingProcessed = 'nothing_processed',
  StaticTokenCrossProject = 'static_token_cross_project',
  RouteDoesNothing = 'route_does_nothing',
  Throttled = 'throttled',
  UrlNotAllowed = 'url_not_allowed',
}

export const AlertingException = defineException<AlertingErrorCode>('alerting', {
  [AlertingErrorCode.NotFound]: 404,
  [AlertingErrorCode.ValidationFailed]: 422,
  [AlertingErrorCode.MalformedPayload]: 422,
  [AlertingErrorCode.NothingProcessed]: 502,
  [AlertingErrorCode.StaticTokenCrossProject]: 403,
  [AlertingErrorCode.RouteDoesNothing]: 422,
  [AlertingErrorCode.Throttled]: 429,
  [AlertingErrorCode.UrlNotAllowed]: 422,
});

export const alertingNotFound = (what = 'Resource') =>
  new AlertingException(AlertingErrorCode.NotFound, `${what} not found`);

/** A 422 `validation_failed` naming fields, shaped like the global validation pipe's. */
export function alertingValidation(fields: Array<{ field: string; messages: string[] }>) {
  const summary = fields.map((f) => f.messages.join(', ')).join('; ');
  return new AlertingException(
    AlertingErrorCode.ValidationFailed,
    `Validation failed: ${summary}`,
    {
      details: { fields },
    },
  );
}

/** A 422 `url_not_allowed`: the URL points where outbound calls may not go. */
export function urlNotAllowed(field: string, reason: string) {
  return new AlertingException(AlertingErrorCode.UrlNotAllowed, reason, {
    details: { fields: [{ field, messages: [reason] }] },
  });
}
