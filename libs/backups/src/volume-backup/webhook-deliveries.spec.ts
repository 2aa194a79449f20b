import { describe, expect, it } from '@jest/globals';
import type { WebhookDeliveryStatus } from '../api/types.js';
import {
  deliveryId,
  isDue,
  KEPT_ENDED_DELIVERIES,
  nextAttemptInMs,
  pruneDeliveries,
  queueDelivery,
  recordAttempt,
  type WebhookRetryPolicy,
} from './webhook-deliveries.js';

const POLICY: WebhookRetryPolicy = {
  attempts: 3,
  initialDelayMs: 1_000,
  maxDelayMs: 1_500,
  timeoutMs: 100,
};
const T0 = new Date('2024-05-03T06:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const NEW = {
  id: 'msg_1',
  event: 'backup.failed',
  url: 'https://h.example/x',
  job: 'j1',
  payload: '{}',
};
const FAILED = { ok: false, refused: false, status: 500, error: 'receiver answered 500' };

describe('webhook deliveries', () => {
  it('derives one id per resource, Job and event', () => {
    expect(deliveryId('uid', 'job', 'backup.failed')).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(deliveryId('uid', 'job', 'backup.failed')).toBe(
      deliveryId('uid', 'job', 'backup.failed'),
    );
    expect(deliveryId('uid', 'job', 'check.failed')).not.toBe(
      deliveryId('uid', 'job', 'backup.failed'),
    );
  });

  it('queues a delivery once, due at once', () => {
    const once = queueDelivery([], NEW, T0);
    expect(once).toEqual([
      {
        ...NEW,
        state: 'Pending',
        attempts: 0,
        createdAt: T0.toISOString(),
        nextAttemptTime: T0.toISOString(),
      },
    ]);
    expect(queueDelivery(once, { ...NEW, payload: '{"other":1}' }, at(5))).toEqual(once);
    expect(isDue(once[0], T0)).toBe(true);
  });

  it('backs off after failures and gives up after the last attempt', () => {
    let delivery = queueDelivery([], NEW, T0)[0];
    delivery = recordAttempt(delivery, FAILED, T0, POLICY);
    expect(delivery).toMatchObject({
      state: 'Pending',
      attempts: 1,
      lastAttemptTime: T0.toISOString(),
      lastOutcome: 'receiver answered 500',
      nextAttemptTime: at(1_000).toISOString(),
      payload: '{}',
    });
    expect(isDue(delivery, at(999))).toBe(false);
    expect(nextAttemptInMs([delivery], at(400))).toBe(600);
    delivery = recordAttempt(delivery, FAILED, at(1_000), POLICY);
    // Doubled, capped at maxDelayMs.
    expect(delivery.nextAttemptTime).toBe(at(2_500).toISOString());
    delivery = recordAttempt(delivery, FAILED, at(2_500), POLICY);
    expect(delivery).toEqual({
      ...NEW,
      payload: undefined,
      state: 'Failed',
      attempts: 3,
      createdAt: T0.toISOString(),
      lastAttemptTime: at(2_500).toISOString(),
      lastOutcome: 'given up after 3 attempts: receiver answered 500',
    });
    expect(nextAttemptInMs([delivery], at(3_000))).toBeUndefined();
  });

  it('ends a delivery on success or on a refused URL', () => {
    const pending = queueDelivery([], NEW, T0)[0];
    expect(
      recordAttempt(pending, { ok: true, refused: false, status: 204, error: null }, T0, POLICY),
    ).toMatchObject({
      state: 'Delivered',
      attempts: 1,
      lastOutcome: 'delivered: HTTP 204',
    });
    const refused = recordAttempt(
      pending,
      { ok: false, refused: true, status: null, error: 'private address' },
      T0,
      POLICY,
    );
    expect(refused).toMatchObject({ state: 'Failed', lastOutcome: 'not sent: private address' });
    expect(refused.payload).toBeUndefined();
  });

  it('keeps every pending delivery and the newest ended ones', () => {
    const ended = Array.from({ length: KEPT_ENDED_DELIVERIES + 3 }, (_, i) => ({
      ...NEW,
      id: `msg_${i}`,
      state: 'Delivered' as const,
      attempts: 1,
      createdAt: at(i).toISOString(),
    }));
    const pending: WebhookDeliveryStatus = { ...ended[0], id: 'msg_p', state: 'Pending' };
    const kept = pruneDeliveries([pending, ...ended]);
    expect(kept.map((d) => d.id)).toEqual(['msg_p', ...ended.slice(3).map((d) => d.id)]);
  });
});
