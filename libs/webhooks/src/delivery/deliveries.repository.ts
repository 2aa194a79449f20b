import { Injectable } from '@nestjs/common';
import { DeliveriesRepository, insertDeliveries } from '@platform/notifications';
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

/**
 * One transition of one object, told once: `source` the kind of object (`helmrelease`,
 * `shoot`, `server`), `objectUid` its uid, `transition` what happened to it.
 */
export interface EventClaim {
  source: string;
  objectUid: string;
  transition: string;
}

/** A delivery as the API shows it: the webhook's row and its delivery record (`w`, `d`). */
const DELIVERY_COLUMNS = `w.id, w.webhook_id, w.event, w.payload,
  CASE WHEN d.status = 'sent' THEN 'succeeded' ELSE d.status END AS status, d.attempts,
  d.last_attempt_at, d.next_attempt_at, w.created_at`;

/** The delivery records of the webhook deliveries in `created` (id, created_at), pending. */
const RECORD_CREATED = insertDeliveries(`
  SELECT id, 'organization_webhook', 'webhook', 'pending', NULL::text, created_at, created_at
    FROM created`);

/**
 * Deliveries of organization webhooks: the webhook, event and payload here, how each stands
 * and its attempts in the delivery record (DeliveriesRepository, same id); pruned by age in
 * batches (the record goes with its delivery).
 */
@Injectable()
export class OrganizationWebhookDeliveriesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly records: DeliveriesRepository,
  ) {}

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
      `WITH created AS (
         INSERT INTO organization_webhook_delivery
           (webhook_id, organization_id, event, payload, created_at)
         SELECT w.id, w.organization_id, $2, $3::jsonb, $4
           FROM organization_webhook w
          WHERE w.organization_id = $1
          ORDER BY w.created_at, w.id
         RETURNING id, created_at
       ), record AS (${RECORD_CREATED})
       SELECT id FROM created`,
      [organizationId, event, JSON.stringify(payload), at],
    );
    return rows.map((row) => row.id);
  }

  /**
   * As createForOrganization, once per transition: claims `claim` in organization_webhook_event
   * and writes the deliveries only when the claim is new, in one statement, so concurrent
   * callers (worker replicas) cannot both deliver and a crash cannot leave a claim without
   * its deliveries. Returns null when the transition was claimed before.
   */
  async createOnce(
    claim: EventClaim,
    organizationId: string,
    event: string,
    payload: { type: string; timestamp: string; data: unknown },
    at: Date,
  ): Promise<string[] | null> {
    const rows: Array<{ claimed: number; ids: string[] }> = await this.dataSource.query(
      `WITH claimed AS (
         INSERT INTO organization_webhook_event
           (source, object_uid, transition, organization_id, event, emitted_at)
         VALUES ($5, $6, $7, $1, $2, $4)
         ON CONFLICT DO NOTHING
         RETURNING 1
       ), created AS (
         INSERT INTO organization_webhook_delivery
           (webhook_id, organization_id, event, payload, created_at)
         SELECT w.id, w.organization_id, $2, $3::jsonb, $4
           FROM organization_webhook w
          WHERE w.organization_id = $1 AND EXISTS (SELECT 1 FROM claimed)
          ORDER BY w.created_at, w.id
         RETURNING id, created_at
       ), record AS (${RECORD_CREATED})
       SELECT (SELECT count(*) FROM claimed)::int AS claimed,
              coalesce(array_agg(id::text), '{}') AS ids
         FROM created`,
      [
        organizationId,
        event,
        JSON.stringify(payload),
        at,
        claim.source,
        claim.objectUid,
        claim.transition,
      ],
    );
    return rows[0].claimed > 0 ? rows[0].ids : null;
  }

  /** Deletes up to `batch` claims made before `cutoff`. */
  async pruneClaims(cutoff: Date, batch: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM organization_webhook_event
        WHERE (source, object_uid, transition) IN (
          SELECT source, object_uid, transition FROM organization_webhook_event
           WHERE emitted_at < $1 LIMIT $2)`,
      [cutoff, batch],
    );
    return count;
  }

  /** A page of a webhook's deliveries, newest first, each with its attempts in order. */
  async page(
    webhookId: string,
    limit: number,
    offset: number,
  ): Promise<{ items: Array<DeliveryRow & { attempt_list: AttemptRow[] }>; total: number }> {
    const [deliveries, counted] = await Promise.all([
      this.dataSource.query<DeliveryRow[]>(
        `SELECT ${DELIVERY_COLUMNS}
           FROM organization_webhook_delivery w JOIN delivery d ON d.id = w.id
          WHERE w.webhook_id = $1
          ORDER BY w.created_at DESC, w.id DESC
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
          `SELECT delivery_id, attempt, started_at, response_status, response_body,
                  reason AS error, duration_ms
             FROM delivery_attempt
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
      `SELECT d.id, d.payload,
              CASE WHEN r.status = 'sent' THEN 'succeeded' ELSE r.status END AS status,
              w.url, w.signing_secret, w.previous_signing_secret,
              w.previous_signing_secret_expires_at
         FROM organization_webhook_delivery d
         JOIN delivery r ON r.id = d.id
         JOIN organization_webhook w ON w.id = d.webhook_id
        WHERE d.id = $1`,
      [deliveryId],
    );
    return rows[0] ?? null;
  }

  /** Fails deliveries that were never attempted (their jobs could not be queued). */
  abandonUnsent(deliveryIds: readonly string[], at: Date): Promise<void> {
    return this.records.abandonUnattempted(deliveryIds, 'not_queued', at);
  }

  /** Deletes up to `batch` deliveries (their records and attempts with them) created before `cutoff`. */
  async prune(cutoff: Date, batch: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM organization_webhook_delivery
        WHERE id IN (SELECT id FROM organization_webhook_delivery WHERE created_at < $1 LIMIT $2)`,
      [cutoff, batch],
    );
    return count;
  }
}
