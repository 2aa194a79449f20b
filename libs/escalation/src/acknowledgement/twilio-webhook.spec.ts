import { describe, expect, it } from '@jest/globals';
import { loadConfig, type PhoneProviderConfig } from '@platform/core';
import { messageResponse, sayResponse, TwilioWebhookVerifier } from './twilio-webhook.js';

// The worked example of Twilio's webhook security documentation.
const PARAMS = {
  CallSid: 'CA1234567890ABCDE',
  Caller: '+12349013030',
  Digits: '1234',
  From: '+12349013030',
  To: '+18005551212',
};
const SIGNATURE = '0/KCTR6DLpKmkAf8muzZqo1nDgQ=';
const PHONE: PhoneProviderConfig = {
  apiUrl: 'https://api.twilio.com',
  accountSid: 'AC_docs',
  authToken: '12345',
  from: '+15550000000',
};

const verifier = (phone: PhoneProviderConfig | null, publicUrl = 'https://mycompany.com') =>
  new TwilioWebhookVerifier({ ...loadConfig({}), publicUrl, phone });
const request = (
  signature: string | undefined,
  body: unknown = PARAMS,
  url = '/myapp.php?foo=1&bar=2',
) => ({
  originalUrl: url,
  headers: { 'x-twilio-signature': signature },
  body,
});
const codeOf = (work: () => unknown) => {
  try {
    work();
    return undefined;
  } catch (error) {
    return [(error as { status?: number }).status, (error as { code?: string }).code];
  }
};

describe('Twilio webhook signatures', () => {
  it("accepts Twilio's documented example and answers its form fields", () => {
    expect(verifier(PHONE).verify(request(SIGNATURE))).toEqual(PARAMS);
  });

  it('signs the public URL, not the address the request reached', () => {
    expect(
      codeOf(() => verifier(PHONE, 'http://10.0.0.5:3000').verify(request(SIGNATURE))),
    ).toEqual([403, 'invalid_webhook_signature']);
  });

  it('refuses a changed parameter, path or signature, and a missing one', () => {
    for (const forged of [
      request(SIGNATURE, { ...PARAMS, Digits: '1' }),
      request(SIGNATURE, { ...PARAMS, Extra: 'x' }),
      request(SIGNATURE, PARAMS, '/myapp.php?foo=1&bar=3'),
      request(SIGNATURE.replace('0', '1')),
      request(undefined),
    ]) {
      expect(codeOf(() => verifier(PHONE).verify(forged))).toEqual([
        403,
        'invalid_webhook_signature',
      ]);
    }
  });

  it('refuses everything when no phone provider is configured', () => {
    expect(codeOf(() => verifier(null).verify(request(SIGNATURE)))).toEqual([
      403,
      'invalid_webhook_signature',
    ]);
  });

  it('escapes what TwiML replies say', () => {
    expect(sayResponse('A & <B>')).toBe('<Response><Say>A &amp; &lt;B&gt;</Say></Response>');
    expect(messageResponse('Acknowledged.')).toBe(
      '<Response><Message>Acknowledged.</Message></Response>',
    );
  });
});
