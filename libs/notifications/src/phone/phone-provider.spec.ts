import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig, type PhoneProviderConfig } from '@platform/core';
import { DeferJob } from '@platform/queue';
import { RATE_LIMITS, RateLimiter } from '@platform/rate-limits';
import {
  closedLocalPort,
  deleteRedisPrefix,
  FakeClock,
  FakeTwilio,
  redisUrl,
  uniqueRedisPrefix,
} from '@platform/testing';
import { Redis } from 'ioredis';
import {
  escapeXml,
  PHONE_PROVIDER_NOT_CONFIGURED,
  PhoneProvider,
  PhoneProviderError,
  PhoneProviderNotConfiguredError,
  sayTwiml,
} from './phone-provider.js';

const prefix = uniqueRedisPrefix();
const redis = new Redis(redisUrl(), { keyPrefix: `${prefix}:` });
const clock = new FakeClock('2026-03-10T07:00:00Z');

function provider(phone: PhoneProviderConfig | null): PhoneProvider {
  const config = { ...loadConfig({}), phone };
  return new PhoneProvider(config, new RateLimiter(redis, clock, config));
}

describe('PhoneProvider', () => {
  let fake: FakeTwilio;

  beforeAll(async () => {
    fake = await FakeTwilio.start({ accountSid: 'AC_unit', authToken: 'token' });
  });

  afterAll(async () => {
    await fake.close();
    await deleteRedisPrefix(prefix);
    redis.disconnect();
  });

  it('defers texts and calls to a number over its limit, sending nothing, until the window has room', async () => {
    const phone = provider(fake.config());
    const number = '+4915100000010';
    const { limit } = RATE_LIMITS.textsAndCallsPerMinute;
    for (let n = 0; n < limit; n++) await phone.sendSms(number, `text ${n}`);
    const sent = fake.requests.length;

    clock.advance({ seconds: 20 });
    const deferred = await phone.call(number, 'one too many').catch((e: unknown) => e);
    expect(deferred).toBeInstanceOf(DeferJob);
    // The oldest text leaves the minute 40 s from now.
    expect((deferred as DeferJob).delayMs).toBe(40_000);
    expect(fake.requests.length).toBe(sent);
    // Another number is not affected.
    await phone.sendSms('+4915100000011', 'other');
    expect(fake.requests.length).toBe(sent + 1);

    clock.advance({ seconds: 40 });
    await phone.call(number, 'now it goes');
    expect(fake.requests.at(-1)).toMatchObject({ kind: 'call', to: number });
  });

  it('sends an SMS to Messages.json with Basic auth and the configured sender', async () => {
    const receipt = await provider(fake.config('+15551112222')).sendSms(
      '+4915123456789',
      'Code 123456 & more',
    );

    expect(receipt).toEqual({ sid: expect.stringMatching(/^SM/), status: 'queued' });
    expect(fake.requests.at(-1)).toEqual({
      kind: 'sms',
      to: '+4915123456789',
      from: '+15551112222',
      body: 'Code 123456 & more',
      auth: { username: 'AC_unit', password: 'token' },
      sid: receipt.sid,
    });
  });

  it('places a call through Calls.json with the text as escaped TwiML', async () => {
    const receipt = await provider(fake.config()).call(
      '+4915123456789',
      `Disk <sda> & "db" isn't ok`,
    );

    expect(receipt.sid).toMatch(/^CA/);
    expect(fake.requests.at(-1)).toMatchObject({
      kind: 'call',
      twiml: `<Response><Say>Disk &lt;sda&gt; &amp; &quot;db&quot; isn&apos;t ok</Say></Response>`,
    });
  });

  it('throws the status and message of a refusal', async () => {
    const wrongToken = provider({ ...fake.config(), authToken: 'wrong' });
    const error = await wrongToken.sendSms('+4915123456789', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PhoneProviderError);
    expect(error).toMatchObject({ status: 401, providerCode: 20003 });
    expect((error as Error).message).toBe('phone provider answered 401: Authenticate');

    fake.failNext(1);
    await expect(provider(fake.config()).sendSms('+4915123456789', 'x')).rejects.toMatchObject({
      status: 500,
      message: 'phone provider answered 500: Internal Server Error',
    });
  });

  it('throws a retryable error when the provider cannot be reached', async () => {
    const port = await closedLocalPort();
    const unreachable = provider({ ...fake.config(), apiUrl: `http://127.0.0.1:${port}` });
    await expect(unreachable.call('+4915123456789', 'x')).rejects.toMatchObject({
      name: 'PhoneProviderError',
      status: null,
      message: expect.stringMatching(/unreachable: ECONNREFUSED/),
    });
  });

  it('throws a typed error naming the reason when no provider is configured', async () => {
    const none = provider(null);
    expect(none.configured).toBe(false);
    const error = await none.sendSms('+4915123456789', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PhoneProviderNotConfiguredError);
    expect((error as PhoneProviderNotConfiguredError).reason).toBe(PHONE_PROVIDER_NOT_CONFIGURED);
    expect(PHONE_PROVIDER_NOT_CONFIGURED).toBe('phone_provider_not_configured');
  });
});

describe('TwiML', () => {
  it('escapes the five XML special characters', () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;',
    );
    expect(sayTwiml('Hello')).toBe('<Response><Say>Hello</Say></Response>');
  });
});
