import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { EscalationErrorCode, EscalationException } from '../escalation-exception.js';
import { escapeXml, isTwilioSignatureValid } from '@platform/notifications';

/** The parts of a webhook request its signature covers. */
export interface WebhookRequest {
  /** Path and query as received, e.g. `/alerts/sms_reply`. */
  originalUrl: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

/**
 * Checks that a webhook comes from the configured Twilio-compatible provider: its
 * `X-Twilio-Signature` must be the provider's signature (HMAC-SHA1 keyed with
 * PHONE_AUTH_TOKEN) of PUBLIC_URL followed by the path and query as received, plus the
 * form parameters. The URL is rebuilt from PUBLIC_URL rather than the Host header because
 * the provider signs the public address it called, whatever proxy stands in between.
 * Without a provider configured nothing can be verified, so every webhook is refused.
 */
@Injectable()
export class TwilioWebhookVerifier {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * The form fields (a repeated one by its first value); 403 `invalid_webhook_signature`
   * unless the provider signed this request.
   */
  verify(request: WebhookRequest): Record<string, string> {
    const params = formParams(request.body);
    const header = request.headers['x-twilio-signature'];
    const signature = Array.isArray(header) ? header[0] : header;
    const authToken = this.config.phone?.authToken;
    const url = `${this.config.publicUrl}${request.originalUrl}`;
    if (!authToken || !isTwilioSignatureValid(authToken, url, params, signature)) {
      throw new EscalationException(
        EscalationErrorCode.InvalidWebhookSignature,
        'The request does not carry a valid signature of the phone provider',
      );
    }
    return Object.fromEntries(
      Object.entries(params).map(([name, value]) => [
        name,
        Array.isArray(value) ? value[0] : value,
      ]),
    );
  }
}

/** The form fields of a parsed urlencoded body (a repeated field is a list). */
function formParams(body: unknown): Record<string, string | string[]> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const params: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') params[name] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      params[name] = value;
  }
  return params;
}

/** TwiML that says `text` on a call. */
export function sayResponse(text: string): string {
  return `<Response><Say>${escapeXml(text)}</Say></Response>`;
}

/** TwiML that answers an inbound SMS with `text`. */
export function messageResponse(text: string): string {
  return `<Response><Message>${escapeXml(text)}</Message></Response>`;
}
