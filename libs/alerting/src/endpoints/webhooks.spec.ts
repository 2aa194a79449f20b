import { describe, expect, it } from '@jest/globals';
import { Backoffs } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import { webhookUrlProblem } from './notification-endpoints.dto.js';
import {
  backoffDelayMs,
  DEFAULT_WEBHOOK_DELIVERY_POLICY,
  generateWebhookSecret,
} from './webhook-policy.js';
import { signatureHeaders } from '@platform/notifications';

describe('endpoint URLs', () => {
  it.each([
    'https://hooks.example.com/alerts',
    'http://127.0.0.1:8080/hook?team=db',
    'https://[::1]:9443/x',
  ])('accepts %s', (url) => {
    expect(webhookUrlProblem(url)).toBeNull();
  });

  // Numbered rather than named: one of them is 2 KB long.
  it.each<[unknown, RegExp]>([
    [undefined, /non-empty string/],
    ['', /non-empty string/],
    [42, /non-empty string/],
    ['ftp://hooks.example.com/', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['hooks.example.com/alerts', /absolute/],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['https://user@hooks.example.com/', /credentials/],
    [' https://hooks.example.com/', /whitespace/],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, /at most 2048/],
  ])('refuses %#', (url, problem) => {
    expect(webhookUrlProblem(url)).toMatch(problem);
  });
});

describe('Standard Webhooks signing', () => {
  const body = JSON.stringify({ type: 'alert_firing', timestamp: 'now', data: {} });

  it('generates whsec_ secrets of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('produces headers the reference verifier accepts, one signature per secret', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const headers = signatureHeaders({
      messageId: 'delivery-1',
      body,
      timestamp: new Date(),
      secrets: [current, previous],
    });
    expect(headers['webhook-id']).toBe('delivery-1');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });

  it('puts the timestamp in whole seconds', () => {
    const headers = signatureHeaders({
      messageId: 'm',
      body,
      timestamp: new Date('2030-01-02T03:04:05.678Z'),
      secrets: [generateWebhookSecret()],
    });
    expect(headers['webhook-timestamp']).toBe(String(Date.parse('2030-01-02T03:04:05Z') / 1000));
  });
});

describe('retry schedule', () => {
  it("matches BullMQ's exponential backoff, so next_attempt_at tells the truth", async () => {
    const policy = DEFAULT_WEBHOOK_DELIVERY_POLICY;
    for (let failed = 1; failed < policy.attempts; failed++) {
      const bull = await Backoffs.calculate(
        { type: 'exponential', delay: policy.backoffMs },
        failed,
        new Error('receiver answered 500'),
        undefined as never,
      );
      expect(backoffDelayMs(failed, policy)).toBe(bull);
    }
    // One minute, doubling, between eight attempts: about two hours end to end.
    const total = Array.from({ length: policy.attempts - 1 }, (_, i) =>
      backoffDelayMs(i + 1, policy),
    ).reduce((a, b) => a + b, 0);
    expect(total).toBe(127 * 60_000);
  });
});
