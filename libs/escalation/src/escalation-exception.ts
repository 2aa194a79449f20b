import { defineException } from '@platform/core';

export enum EscalationErrorCode {
  NotFound = 'not_found',
  ValidationFailed = 'validation_failed',
  InvalidSignedToken = 'invalid_signed_token',
  SignedLinkExpired = 'signed_link_expired',
  LinkSuperseded = 'link_superseded',
  Forbidden = 'forbidden',
  InvalidWebhookSignature = 'invalid_webhook_signature',
  InvalidDays = 'invalid_days',
  PresetsAlreadyConfigured = 'presets_already_configured',
}

export const EscalationException = defineException<EscalationErrorCode>('escalation', {
  [EscalationErrorCode.NotFound]: 404,
  [EscalationErrorCode.ValidationFailed]: 422,
  [EscalationErrorCode.InvalidSignedToken]: 401,
  [EscalationErrorCode.SignedLinkExpired]: 401,
  [EscalationErrorCode.LinkSuperseded]: 410,
  [EscalationErrorCode.Forbidden]: 403,
  [EscalationErrorCode.InvalidWebhookSignature]: 403,
  [EscalationErrorCode.InvalidDays]: 422,
  [EscalationErrorCode.PresetsAlreadyConfigured]: 422,
});

export const escalationNotFound = (what = 'Resource') =>
  new EscalationException(EscalationErrorCode.NotFound, `${what} not found`);

/** 410: the page answered belongs to an escalation that is no longer the alert's current one. */
export const linkSuperseded = () =>
  new EscalationException(
    EscalationErrorCode.LinkSuperseded,
    'This link belongs to an earlier or ended escalation of the alert and acknowledges nothing',
  );

/** A 422 `validation_failed` naming fields, shaped like the global validation pipe's. */
export function escalationValidation(fields: Array<{ field: string; messages: string[] }>) {
  const summary = fields.map((f) => f.messages.join(', ')).join('; ');
  return new EscalationException(
    EscalationErrorCode.ValidationFailed,
    `Validation failed: ${summary}`,
    { details: { fields } },
  );
}
