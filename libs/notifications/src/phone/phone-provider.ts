import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  APP_CONFIG,
  type AppConfig,
  MetricsService,
  type PhoneProviderConfig,
} from '@platform/core';
import { DeferJob } from '@platform/queue';
import { RATE_LIMITS, RateLimiter } from '@platform/rate-limits';
import { type FailureVerdict, failureReason } from '../channels/channel.js';

/** The delivery reason recorded when PHONE_* is unset. */
export const PHONE_PROVIDER_NOT_CONFIGURED = 'phone_provider_not_configured';

/** PHONE_* is unset: nothing can be sent, and retrying will not change that. */
export class PhoneProviderNotConfiguredError extends Error {
  readonly reason = PHONE_PROVIDER_NOT_CONFIGURED;

  constructor() {
    super('No phone provider is configured (PHONE_API_URL, PHONE_ACCOUNT_SID, ... are unset)');
    this.name = 'PhoneProviderNotConfiguredError';
  }
}

/** The provider refused the request or could not be reached; worth retrying. */
export class PhoneProviderError extends Error {
  readonly reason = 'phone_provider_error';

  constructor(
    message: string,
    /** The HTTP status the provider answered; null when it could not be reached. */
    readonly status: number | null,
    /** The provider's own error code (Twilio's `code`), when it sent one. */
    readonly providerCode: number | string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PhoneProviderError';
  }
}

/**
 * What a failed text or call means: without a provider (PHONE_* unset) nothing can be sent and
 * retrying cannot help; any other failure (unreachable, a 5xx, a refusal) is worth another
 * attempt after the backoff.
 */
export function classifyPhoneFailure(error: unknown): FailureVerdict {
  if (error instanceof PhoneProviderNotConfiguredError)
    return { retry: false, reason: error.reason };
  return { retry: true, reason: failureReason(error) };
}

/** What the provider answered for an accepted message or call. */
export interface PhoneReceipt {
  sid: string;
  status: string;
}

const REQUEST_TIMEOUT_MS = 10_000;

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
}

/** TwiML that reads `text` aloud. */
export function sayTwiml(text: string): string {
  return `<Response><Say>${escapeXml(text)}</Say></Response>`;
}

/**
 * A client of the Twilio REST API shape (any compatible service): SMS through Messages.json,
 * voice calls through Calls.json with inline TwiML. PHONE_* unset: every send throws
 * PhoneProviderNotConfiguredError. Every text and call, whoever sends it, counts against the
 * destination number's limits (RATE_LIMITS.textsAndCalls*): over them, the send throws
 * DeferJob and its job waits for the window instead of failing.
 */
@Injectable()
export class PhoneProvider {
  private readonly settings: PhoneProviderConfig | null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly limits: RateLimiter,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.settings = config.phone;
  }

  get configured(): boolean {
    return this.settings !== null;
  }

  sendSms(to: string, body: string): Promise<PhoneReceipt> {
    return this.counted('sms', this.post('Messages.json', { To: to, Body: body }));
  }

  /** Calls `to` and reads `text` aloud. */
  call(to: string, text: string): Promise<PhoneReceipt> {
    return this.counted('phone', this.post('Calls.json', { To: to, Twiml: sayTwiml(text) }));
  }

  /** Calls `to` and runs the given TwiML (e.g. a `<Gather>` whose answer comes back to us). */
  callWithTwiml(to: string, twiml: string): Promise<PhoneReceipt> {
    return this.counted('phone', this.post('Calls.json', { To: to, Twiml: twiml }));
  }

  private async counted(
    channel: 'sms' | 'phone',
    request: Promise<PhoneReceipt>,
  ): Promise<PhoneReceipt> {
    try {
      const receipt = await request;
      this.metrics?.countDelivery(channel, 'sent');
      return receipt;
    } catch (error) {
      if (!(error instanceof DeferJob)) this.metrics?.countDelivery(channel, 'failed');
      throw error;
    }
  }

  private async post(resource: string, fields: Record<string, string>): Promise<PhoneReceipt> {
    const settings = this.settings;
    if (!settings) throw new PhoneProviderNotConfiguredError();
    const waitMs = await this.limits.acquire(
      { rule: RATE_LIMITS.textsAndCallsPerMinute, key: fields.To },
      { rule: RATE_LIMITS.textsAndCallsPerHour, key: fields.To },
    );
    if (waitMs > 0) {
      throw new DeferJob(waitMs, `texts and calls to this number are over their rate limit`);
    }
    const base = settings.apiUrl.replace(/\/+$/, '');
    const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/${resource}`;
    const credentials = Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString(
      'base64',
    );
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${credentials}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body: new URLSearchParams({ ...fields, From: settings.from }).toString(),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new PhoneProviderError(`phone provider unreachable: ${detail}`, null, null, {
        cause: error,
      });
    }
    const text = await response.text();
    const json = parseJson(text);
    if (!response.ok) {
      const message =
        typeof json?.message === 'string'
          ? json.message
          : text.slice(0, 200) || response.statusText;
      const code =
        typeof json?.code === 'number' || typeof json?.code === 'string' ? json.code : null;
      throw new PhoneProviderError(
        `phone provider answered ${response.status}: ${message}`,
        response.status,
        code,
      );
    }
    return {
      sid: typeof json?.sid === 'string' ? json.sid : '',
      status: typeof json?.status === 'string' ? json.status : 'queued',
    };
  }
}

/**
 * Twilio's request signature (`X-Twilio-Signature`): base64 of HMAC-SHA1 keyed with the auth
 * token over the full URL Twilio requested, followed by every POST parameter as name then
 * value, sorted by name.
 */
export function twilioSignature(
  authToken: string,
  url: string,
  params: Record<string, string | string[]>,
): string {
  const data = Object.keys(params)
    .sort()
    .map((name) => {
      const value = params[name];
      return (Array.isArray(value) ? [...value].sort() : [value]).map((v) => name + v).join('');
    })
    .join('');
  return createHmac('sha1', authToken)
    .update(url + data)
    .digest('base64');
}

/** Whether `signature` is Twilio's signature of this request, compared in constant time. */
export function isTwilioSignatureValid(
  authToken: string,
  url: string,
  params: Record<string, string | string[]>,
  signature: string | undefined,
): boolean {
  if (!signature) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
