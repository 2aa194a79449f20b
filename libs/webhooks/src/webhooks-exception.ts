import { defineException } from '@platform/core';

export enum WebhooksErrorCode {
  NotFound = 'not_found',
  Unauthorized = 'unauthorized',
  ValidationFailed = 'validation_failed',
  UrlNotAllowed = 'url_not_allowed',
}

export const WebhooksException = defineException<WebhooksErrorCode>('webhooks', {
  [WebhooksErrorCode.NotFound]: 404,
  [WebhooksErrorCode.Unauthorized]: 401,
  [WebhooksErrorCode.ValidationFailed]: 422,
  [WebhooksErrorCode.UrlNotAllowed]: 422,
});

export const webhookNotFound = () =>
  new WebhooksException(WebhooksErrorCode.NotFound, 'Webhook not found');

/**
 * The one answer to a receive that is not authenticated: unknown id, malformed id, missing or
 * wrong secret all look the same, so the route reveals nothing about which webhooks exist.
 */
export const receiveUnauthorized = () =>
  new WebhooksException(
    WebhooksErrorCode.Unauthorized,
    'The Authorization header does not carry the secret of this webhook',
  );

/** A 422 `validation_failed` naming fields, shaped like the global validation pipe's. */
export function webhooksValidation(fields: Array<{ field: string; messages: string[] }>) {
  const summary = fields.map((f) => f.messages.join(', ')).join('; ');
  return new WebhooksException(
    WebhooksErrorCode.ValidationFailed,
    `Validation failed: ${summary}`,
    {
      details: { fields },
    },
  );
}

/** A 422 `url_not_allowed`: the URL points where outbound calls may not go. */
export function urlNotAllowed(reason: string) {
  return new WebhooksException(WebhooksErrorCode.UrlNotAllowed, reason, {
    details: { fields: [{ field: 'webhook.url', messages: [reason] }] },
  });
}
