import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { DeliveryOutcome } from './delivery-attempt.js';

/*
 * The delivery record: one `delivery` row for every outbound delivery, whatever its source
 * (notify()'s e-mails, texts and calls; escalation pages; notification endpoints' and
 * organization webhooks' POSTs), and one `delivery_attempt` row per attempt. The pipeline owns
 * both; sources keep only what is theirs (the notification, the page's step, recipient and
 * reply code, the webhook's endpoint, event and payload) in a row of the same id, and read
 * their deliveries by joining on it.
 *
 * - A source writes its row and its delivery in one statement (`insertDeliveries` as a CTE), and
 *   its outcomes through DeliveriesRepository, or inside its own batch statement
 *   (`recordDeliveryOutcomes`) where one statement per batch matters (escalation pages).
 * - An outcome is recorded only on a delivery still pending: a delivery that ended stays ended,
 *   whichever of two racing deliveries records first.
 * - An attempt row's outcome is `sent` or `failed`; a failure left to retry keeps the delivery
 *   pending with its reason and next attempt time. A skip decided without sending (the
 *   recipient's rules, a halted escalation) finishes the delivery with no attempt row.
 * - Deleting a source row deletes its delivery (a statement trigger on each source table), so
 *   retention prunes and cascades need no second statement.
 * - Channels are not constrained in the schema: a channel is its file and its registration.
 */

/** What a delivery is of: the source row sharing its id. */
export const DELIVERY_SOURCES = [
  'notification',
  'escalation_page',
  'endpoint_webhook',
  'organization_webhook',
] as const;
export type DeliverySource = (typeof DELIVERY_SOURCES)[number];

/**
 * A delivery's status: `pending` while the pipeline owes an attempt, `held` while an e-mail
 * waits for a digest or the end of quiet hours, then how it ended.
 */
export type DeliveryStatus = 'pending' | 'held' | 'sent' | 'failed' | 'skipped';

/** One attempt's outcome, or a decision that made none (`attempted` false), for the record. */
export interface DeliveryRecordUpdate {
  deliveryId: string;
  /** The delivery's status after this outcome. */
  status: Exclude<DeliveryStatus, 'held'>;
  reason: string | null;
  attempted: boolean;
  providerRef?: string | null;
  startedAt: Date;
  durationMs?: number;
  /** HTTP deliveries: the receiver's status and the start of its answer. */
  responseStatus?: number | null;
  responseBody?: string | null;
  /** When a delivery left pending is tried again. */
  nextAttemptAt?: Date | null;
  /** When the outcome was recorded (the delivery's finished time when it ended). */
  at: Date;
}

/**
 * The columns of a relation of outcomes (`o` in `recordDeliveryOutcomes`), as OUTCOME_ROWS
 * answers them.
 */
export const OUTCOME_COLUMNS = `id, status, reason, attempted, provider_ref, started_at,
  duration_ms, response_status, response_body, next_attempt_at, at`;

/**
 * New delivery rows, from `select`: a SELECT answering (id, source, channel, status, reason,
 * created_at, due_at) in that order. A pending one is next attempted when due; one created
 * settled (skipped, say) is finished at once. A source writes its rows and their deliveries in
 * one statement, this as one of its CTEs (`name AS (${insertDeliveries(...)})`).
 */
export function insertDeliveries(select: string): string {
  return `INSERT INTO delivery
    (id, source, channel, status, reason, created_at, due_at, next_attempt_at, finished_at)
  SELECT n.*, CASE WHEN n.status = 'pending' THEN n.due_at END,
         CASE WHEN n.status IN ('sent', 'failed', 'skipped') THEN n.created_at END
    FROM (${select}) AS n (id, source, channel, status, reason, created_at, due_at)`;
}

/**
 * Two CTEs, `<name>` and `<name>_attempts`, recording outcomes on deliveries still pending:
 * status, reason, attempts, provider id and times on the delivery, an attempt row per attempted
 * outcome. `from` is a FROM list naming the outcome rows `o` (with OUTCOME_COLUMNS), which may
 * join what else decides whether they are recorded (a source's claim). `<name>` answers the
 * recorded delivery ids (`id`) with their status after it (`status`) and the outcome's `at`, and
 * `returning`, columns of `from` the caller needs of each record (saves reading them again).
 *
 * The statement's `$1` must be the outcome rows' ids (OUTCOME_ROWS and outcomeParameters make it
 * so): the records are looked up by those ids on the primary key, whatever the statistics say.
 * In a burst they lag: believing one delivery pending where there are a hundred thousand, the
 * planner would start from the pending-deliveries index (its predicate implied by `status =
 * 'pending'`) and read all of them for every batch recorded, a cost growing with the burst
 * squared. The ids come as an array the planner cannot size, which makes the key lookups its
 * cheapest plan, and the status is compared in a form that does not imply that index's
 * predicate; the comparison still holds for the row version the update writes.
 */
export function recordDeliveryOutcomes(name: string, from: string, returning = ''): string {
  return `${name} AS (
    UPDATE delivery d
       SET status = o.status, reason = o.reason,
           attempts = d.attempts + CASE WHEN o.attempted THEN 1 ELSE 0 END,
           provider_ref = coalesce(o.provider_ref, d.provider_ref),
           last_attempt_at = CASE WHEN o.attempted THEN o.started_at ELSE d.last_attempt_at END,
           next_attempt_at = o.next_attempt_at,
           finished_at = CASE WHEN o.status = 'pending' THEN NULL ELSE o.at END
      FROM ${from}
     WHERE d.id = ANY (ARRAY(SELECT unnest($1::uuid[]))) AND d.id = o.id
       AND d.status || '' = 'pending'
     RETURNING d.id, d.attempts, d.status, o.attempted, o.reason, o.started_at, o.duration_ms,
               o.response_status, o.response_body, o.at${returning ? `, ${returning}` : ''}
  ), ${name}_attempts AS (
    INSERT INTO delivery_attempt
      (delivery_id, attempt, started_at, duration_ms, outcome, reason, response_status,
       response_body)
    SELECT id, attempts, started_at, duration_ms,
           CASE WHEN status = 'sent' THEN 'sent' ELSE 'failed' END, reason, response_status,
           response_body
      FROM ${name} WHERE attempted
  )`;
}

/** The record update of an attempt's outcome under the one retry model. */
export function recordOf(
  deliveryId: string,
  outcome: DeliveryOutcome,
  at: Date,
): DeliveryRecordUpdate {
  const durationMs = outcome.durationMs ?? 0;
  return {
    deliveryId,
    status: outcome.status,
    reason: outcome.reason?.slice(0, 500) ?? null,
    attempted: outcome.attempted,
    providerRef: outcome.receipt?.providerRef ?? null,
    startedAt: new Date(at.getTime() - durationMs),
    durationMs,
    at,
  };
}

/**
 * The delivery record, written by the pipeline only: sources create their deliveries with
 * `insertDeliveries`, and every outcome goes through `record`/`recordMany` (or
 * `recordDeliveryOutcomes` inside a source's batch statement).
 */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records an outcome on a delivery still pending, with its attempt row when one was made;
   * answers the attempt's number (0 for an outcome without attempt), or null when the delivery
   * is gone or no longer pending.
   */
  async record(update: DeliveryRecordUpdate): Promise<number | null> {
    const rows = await this.recordRows([update]);
    return rows.get(update.deliveryId) ?? null;
  }

  /** As `record`, for many deliveries in one statement; answers the ids recorded. */
  async recordMany(updates: readonly DeliveryRecordUpdate[]): Promise<Set<string>> {
    if (updates.length === 0) return new Set();
    return new Set((await this.recordRows(updates)).keys());
  }

  /**
   * Fails deliveries still pending that were never attempted (their jobs could not be queued),
   * with `reason`; a delivery already attempted is its jobs' to finish.
   */
  async abandonUnattempted(ids: readonly string[], reason: string, at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource.query(
      `UPDATE delivery
          SET status = 'failed', reason = $2, next_attempt_at = NULL, finished_at = $3
        WHERE id = ANY ($1::uuid[]) AND status = 'pending' AND attempts = 0`,
      [ids, reason, at],
    );
  }

  private async recordRows(updates: readonly DeliveryRecordUpdate[]): Promise<Map<string, number>> {
    const rows: Array<{ id: string; attempts: number; attempted: boolean }> =
      await this.dataSource.query(
        `WITH outcome AS (${OUTCOME_ROWS}), ${recordDeliveryOutcomes('recorded', 'outcome o')}
         SELECT id, attempts, attempted FROM recorded`,
        outcomeParameters(updates),
      );
    return new Map(rows.map((r) => [r.id, r.attempted ? r.attempts : 0]));
  }
}

/** Outcome rows from the parameters of `outcomeParameters` ($1 to $11). */
export const OUTCOME_ROWS = `
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[], $5::text[],
                       $6::timestamptz[], $7::integer[], $8::integer[], $9::text[],
                       $10::timestamptz[], $11::timestamptz[])
    AS o (${OUTCOME_COLUMNS})`;

/** The parameters of OUTCOME_ROWS for `updates`, in order. */
export function outcomeParameters(updates: readonly DeliveryRecordUpdate[]): unknown[] {
  return [
    updates.map((u) => u.deliveryId),
    updates.map((u) => u.status),
    updates.map((u) => u.reason?.slice(0, 500) ?? null),
    updates.map((u) => u.attempted),
    updates.map((u) => u.providerRef ?? null),
    updates.map((u) => u.startedAt),
    updates.map((u) => Math.max(0, Math.round(u.durationMs ?? 0))),
    updates.map((u) => u.responseStatus ?? null),
    updates.map((u) => u.responseBody ?? null),
    updates.map((u) => u.nextAttemptAt ?? null),
    updates.map((u) => u.at),
  ];
}
