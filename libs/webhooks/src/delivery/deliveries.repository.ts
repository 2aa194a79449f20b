import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event: string;
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
}

/** What the deliver job needs: the delivery and the webhook's current address and secrets. */
export interface SigningTarget {
  id: string;
  payload: { type: string; timestamp: string; data: unknown };
  status: DeliveryStatus;
  url: string;
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_signing_secret_expires_at: Date | null;
}

export interface AttemptOutcome {
  deliveryId: string;
  startedAt: Date;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  /** The delivery's state after this attempt. */
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

const DELIVERY_COLUMNS = `id, webhook_id, event, payload, status, attempts, last_attempt_at,
  next_attempt_at, created_at`;

/** Deliveries of organization webhooks and their attempts; pruned by age in batches. */
@Injectable()
export class OrganizationWebhookDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One pending delivery of `payload` to every webhook of the organization, in one statement.
   * Returns the new delivery ids (none when the organization has no webhook).
   */
  async createForOrganization(
    organizationId: string,
    event: string,
    payload: { type: string; timestamp: string; data: unknown },
    at: Date,
  ): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO organization_webhook_delivery
         (webhook_id, organization_id, event, payload, status, attempts, next_attempt_at, created_at)
       SELECT w.id, w.organization_id, $2, $3::jsonb, 'pending', 0, $4, $4
         FROM organization_webhook w
        WHERE w.organization_id = $1
        ORDER BY w.created_at, w.id
       RETURNING id`,
      [organizationId, event, JSON.stringify(payload), at],
    );
    return rows.map((row) => row.id);
  }

  /** A page of a webhook's deliveries, newest first, each with its attempts in order. */
  async page(
    webhookId: string,
    limit: number,
    offset: number,
  ): Promise<{ items: Array<DeliveryRow & { attempt_list: AttemptRow[] }>; total: number }> {
    const [deliveries, counted] = await Promise.all([
      this.dataSource.query<DeliveryRow[]>(
        `SELECT ${DELIVERY_COLUMNS} FROM organization_webhook_delivery
          WHERE webhook_id = $1
          ORDER BY created_at DESC, id DESC
          LIMIT $2 OFFSET $3`,
        [webhookId, limit, offset],
      ),
      this.dataSource.query<Array<{ total: number }>>(
        'SELECT count(*)::int AS total FROM organization_webhook_delivery WHERE webhook_id = $1',
        [webhookId],
      ),
    ]);
    const attempts: AttemptRow[] = deliveries.length
      ? await this.dataSource.query(
          `SELECT delivery_id, attempt, started_at, response_status, response_body, error,
                  duration_ms
             FROM organization_webhook_delivery_attempt
            WHERE delivery_id = ANY ($1::uuid[])
            ORDER BY delivery_id, attempt`,
          [deliveries.map((d) => d.id)],
        )
      : [];
    const byDelivery = new Map<string, AttemptRow[]>();
    for (const attempt of attempts) {
      byDelivery.set(attempt.delivery_id, [
        ...(byDelivery.get(attempt.delivery_id) ?? []),
        attempt,
      ]);
    }
    return {
      items: deliveries.map((d) => ({ ...d, attempt_list: byDelivery.get(d.id) ?? [] })),
      total: counted[0].total,
    };
  }

  async signingTarget(deliveryId: string): Promise<SigningTarget | null> {
    const rows: SigningTarget[] = await this.dataSource.query(
      `SELECT d.id, d.payload, d.status, w.url, w.signing_secret, w.previous_signing_secret,
              w.previous_signing_secret_expires_at
         FROM organization_webhook_delivery d
         JOIN organization_webhook w ON w.id = d.webhook_id
        WHERE d.id = $1`,
      [deliveryId],
    );
    return rows[0] ?? null;
  }

  /**
   * Records one attempt and moves the delivery to its new state in one statement; nothing
   * happens when the delivery is gone or no longer pending. Returns the attempt number.
   */
  async recordAttempt(outcome: AttemptOutcome): Promise<number | null> {
    const rows: Array<{ attempt: number }> = await this.dataSource.query(
      `WITH delivery AS (
         UPDATE organization_webhook_delivery
            SET attempts = attempts + 1, last_attempt_at = $2, status = $3, next_attempt_at = $4
          WHERE id = $1 AND status = 'pending'
          RETURNING id, attempts
       )
       INSERT INTO organization_webhook_delivery_attempt
         (delivery_id, attempt, started_at, response_status, response_body, error, duration_ms)
       SELECT id, attempts, $2, $5, $6, $7, $8 FROM delivery
       RETURNING attempt`,
      [
        outcome.deliveryId,
        outcome.startedAt,
        outcome.status,
        outcome.nextAttemptAt,
        outcome.responseStatus,
        outcome.responseBody,
        outcome.error,
        outcome.durationMs,
      ],
    );
    return rows[0]?.attempt ?? null;
  }

  /** Fails deliveries that were never attempted (their jobs could not be queued). */
  async abandonUnsent(deliveryIds: readonly string[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE organization_webhook_delivery SET status = 'failed', next_attempt_at = NULL
        WHERE id = ANY ($1::uuid[]) AND status = 'pending' AND attempts = 0`,
      [deliveryIds],
    );
  }

  /** Deletes up to `batch` deliveries (their attempts cascade) created before `cutoff`. */
  async prune(cutoff: Date, batch: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM organization_webhook_delivery
        WHERE id IN (SELECT id FROM organization_webhook_delivery WHERE created_at < $1 LIMIT $2)`,
      [cutoff, batch],
    );
    return count;
  }
}
