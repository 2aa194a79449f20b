import { createHash } from 'node:crypto';
import type { WebhookDeliveryStatus } from '../api/types.js';

export interface WebhookRetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
}

export const DEFAULT_WEBHOOK_RETRY_POLICY: WebhookRetryPolicy = {
  attempts: 5,
  initialDelayMs: 2_000,
  maxDelayMs: 60_000,
  timeoutMs: 10_000,
};

/** Ended deliveries kept in status for people to look at; pending ones are always kept. */
export const KEPT_ENDED_DELIVERIES = 10;

/** What one attempt came to (the part of the outbound client's result recorded here). */
export interface AttemptResult {
  ok: boolean;
  /** The URL was not allowed: nothing was sent, and retrying would not change that. */
  refused: boolean;
  status: number | null;
  error: string | null;
}

/**
 * The `webhook-id` of a run's event: derived from the resource's uid, the Job and the event, so
 * a delivery queued twice (a crash between recording it and claiming the run) is one delivery,
 * and every retry carries the same id receivers deduplicate on.
 */
export function deliveryId(uid: string, job: string, event: string): string {
  const digest = createHash('sha256').update(`${uid}\n${job}\n${event}`).digest('hex');
  return `msg_${digest.slice(0, 32)}`;
}

/** Adds a delivery due now, unless one with its id is already there. */
export function queueDelivery(
  deliveries: readonly WebhookDeliveryStatus[],
  delivery: Pick<WebhookDeliveryStatus, 'id' | 'event' | 'url' | 'job' | 'payload'>,
  now: Date,
): WebhookDeliveryStatus[] {
  if (deliveries.some((d) => d.id === delivery.id)) return [...deliveries];
  const at = now.toISOString();
  return [
    ...deliveries,
    { ...delivery, state: 'Pending', attempts: 0, createdAt: at, nextAttemptTime: at },
  ];
}

export function isDue(delivery: WebhookDeliveryStatus, now: Date): boolean {
  if (delivery.state !== 'Pending') return false;
  const next = delivery.nextAttemptTime ? Date.parse(delivery.nextAttemptTime) : 0;
  return Number.isNaN(next) || next <= now.getTime();
}

/** The delay before the n-th retry: doubling from the initial delay, capped. */
export function retryDelayMs(policy: WebhookRetryPolicy, attemptsMade: number): number {
  return Math.min(policy.initialDelayMs * 2 ** Math.max(0, attemptsMade - 1), policy.maxDelayMs);
}

/** The delivery after one more attempt: delivered, given up, or due again after the backoff. */
export function recordAttempt(
  delivery: WebhookDeliveryStatus,
  result: AttemptResult,
  now: Date,
  policy: WebhookRetryPolicy,
): WebhookDeliveryStatus {
  const attempts = delivery.attempts + 1;
  const base = { ...delivery, attempts, lastAttemptTime: now.toISOString() };
  delete base.nextAttemptTime;
  if (result.ok) {
    delete base.payload;
    return { ...base, state: 'Delivered', lastOutcome: `delivered: HTTP ${result.status}` };
  }
  const outcome = result.error ?? (result.status ? `HTTP ${result.status}` : 'failed');
  if (result.refused || attempts >= policy.attempts) {
    delete base.payload;
    const why = result.refused ? 'not sent' : `given up after ${attempts} attempts`;
    return { ...base, state: 'Failed', lastOutcome: `${why}: ${outcome}` };
  }
  const next = new Date(now.getTime() + retryDelayMs(policy, attempts));
  return { ...base, state: 'Pending', lastOutcome: outcome, nextAttemptTime: next.toISOString() };
}

/** Every pending delivery and the newest ended ones, oldest first. */
export function pruneDeliveries(
  deliveries: readonly WebhookDeliveryStatus[],
): WebhookDeliveryStatus[] {
  const ended = deliveries.filter((d) => d.state !== 'Pending');
  const dropped = new Set(ended.slice(0, Math.max(0, ended.length - KEPT_ENDED_DELIVERIES)));
  return deliveries.filter((d) => !dropped.has(d));
}

/** Milliseconds until the next pending delivery is due; undefined when none is pending. */
export function nextAttemptInMs(
  deliveries: readonly WebhookDeliveryStatus[],
  now: Date,
): number | undefined {
  const times = deliveries
    .filter((d) => d.state === 'Pending')
    .map((d) => (d.nextAttemptTime ? Date.parse(d.nextAttemptTime) : now.getTime()))
    .map((t) => (Number.isNaN(t) ? 0 : Math.max(0, t - now.getTime())));
  return times.length > 0 ? Math.min(...times) : undefined;
}
