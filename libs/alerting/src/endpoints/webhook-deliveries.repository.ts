import { Injectable } from '@nestjs/common';
import { DeliveriesRepository, insertDeliveries } from '@platform/notifications';
import { DataSource } from 'typeorm';
import type { EndpointEvent } from './endpoints.repository.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryEvent = EndpointEvent | 'endpoint.test';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  project_id: string;
  alert_id: string | null;
  event: DeliveryEvent;
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

/** What the deliver job needs: the delivery and the endpoint's current address and secrets. */
export interface SigningTarget {
  id: string;
  event: DeliveryEvent;
  payload: { type: string; timestamp: string; data: unknown };
  status: DeliveryStatus;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** A delivery as the API shows it: the endpoint's row and its delivery record (`w`, `d`). */
const DELIVERY_COLUMNS = `w.id, w.endpoint_id, w.project_id, w.alert_id, w.event, w.payload,
  CASE WHEN d.status = 'sent' THEN 'succeeded' ELSE d.status END AS status, d.attempts,
  d.last_attempt_at, d.next_attempt_at, w.created_at`;

/** The delivery records of the webhook deliveries in `created` (id, created_at), pending. */
const RECORD_CREATED = insertDeliveries(`
  SELECT id, 'endpoint_webhook', 'webhook', 'pending', NULL::text, created_at, created_at
    FROM created`);

/** An ISO-8601 UTC timestamp with milliseconds, as the API renders dates. */
const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Webhook deliveries: the endpoint, alert, event and payload here, how each stands and its
 * attempts in the delivery record (DeliveriesRepository, same id); written set-based, pruned by
 * age in batches (the record goes with its delivery).
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly records: DeliveriesRepository,
  ) {}

  /**
   * One delivery per distinct (alert, endpoint) pair whose endpoint is an enabled endpoint of
   * the project subscribed to `event` and whose alert belongs to the project; the payload is
   * the alert as it is now. Returns the new delivery ids.
   */
  async createAlertDeliveries(
    projectId: string,
    event: EndpointEvent,
    pairs: ReadonlyArray<{ alertId: string; endpointId: string }>,
    at: Date,
  ): Promise<string[]> {
    if (pairs.length === 0) return [];
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `WITH wanted AS (
         SELECT DISTINCT w.alert_id, w.endpoint_id
           FROM unnest($2::uuid[], $3::uuid[]) AS w (alert_id, endpoint_id)
       ), created AS (
       INSERT INTO webhook_delivery
         (endpoint_id, project_id, alert_id, event, payload, created_at)
       SELECT e.id, e.project_id, a.id, $4,
              jsonb_build_object(
                'type', $4::text,
                'timestamp', $6::text,
                'data', jsonb_build_object('alert', jsonb_build_object(
                  'id', a.id,
                  'project_id', a.project_id,
                  'fingerprint', a.fingerprint,
                  'status', a.status,
                  'severity', a.severity,
                  'labels', a.labels,
                  'annotations', a.annotations,
                  'starts_at', ${iso('a.starts_at')},
                  'ends_at', ${iso('a.ends_at')},
                  'generator_url', a.generator_url))),
              $5
         FROM wanted w
         JOIN notification_endpoint e
           ON e.id = w.endpoint_id AND e.project_id = $1 AND e.enabled AND $4 = ANY (e.events)
         JOIN alert a ON a.id = w.alert_id AND a.project_id = $1
        ORDER BY a.id, e.id
       RETURNING id, created_at
       ), record AS (${RECORD_CREATED})
       SELECT id FROM created`,
      [
        projectId,
        pairs.map((p) => p.alertId),
        pairs.map((p) => p.endpointId),
        event,
        at,
        at.toISOString(),
      ],
    );
    return rows.map((row) => row.id);
  }

  /** A test ping to one endpoint (enabled or not: testing comes before enabling). */
  async createTestDelivery(
    projectId: string,
    endpointId: string,
    at: Date,
  ): Promise<DeliveryRow | null> {
    const rows: DeliveryRow[] = await this.dataSource.query(
      `WITH created AS (
       INSERT INTO webhook_delivery
         (endpoint_id, project_id, alert_id, event, payload, created_at)
       SELECT e.id, e.project_id, NULL, 'endpoint.test',
              jsonb_build_object(
                'type', 'endpoint.test',
                'timestamp', $4::text,
                'data', jsonb_build_object('endpoint', jsonb_build_object(
                  'id', e.id, 'project_id', e.project_id, 'name', e.name, 'url', e.url))),
              $3
         FROM notification_endpoint e
        WHERE e.id = $1 AND e.project_id = $2
       RETURNING *
       ), record AS (${RECORD_CREATED} RETURNING *)
       SELECT ${DELIVERY_COLUMNS} FROM created w JOIN record d ON d.id = w.id`,
      [endpointId, projectId, at, at.toISOString()],
    );
    return rows[0] ?? null;
  }

  /** A page of an endpoint's deliveries, newest first, each with its attempts in order. */
  async page(
    endpointId: string,
    limit: number,
    offset: number,
  ): Promise<{ items: Array<DeliveryRow & { attempt_list: AttemptRow[] }>; total: number }> {
    const [deliveries, counted] = await Promise.all([
      this.dataSource.query<DeliveryRow[]>(
        `SELECT ${DELIVERY_COLUMNS}
             FROM webhook_delivery w JOIN delivery d ON d.id = w.id
            WHERE w.endpoint_id = $1
            ORDER BY w.created_at DESC, w.id DESC
            LIMIT $2 OFFSET $3`,
        [endpointId, limit, offset],
      ),
      this.dataSource.query<Array<{ total: number }>>(
        'SELECT count(*)::int AS total FROM webhook_delivery WHERE endpoint_id = $1',
        [endpointId],
      ),
    ]);
    const total = counted[0].total;
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
      const list = byDelivery.get(attempt.delivery_id) ?? [];
      list.push(attempt);
      byDelivery.set(attempt.delivery_id, list);
    }
    return {
      items: deliveries.map((d) => ({ ...d, attempt_list: byDelivery.get(d.id) ?? [] })),
      total,
    };
  }

  async signingTarget(deliveryId: string): Promise<SigningTarget | null> {
    const rows: SigningTarget[] = await this.dataSource.query(
      `SELECT d.id, d.event, d.payload,
              CASE WHEN r.status = 'sent' THEN 'succeeded' ELSE r.status END AS status,
              e.url, e.enabled, e.secret, e.previous_secret, e.previous_secret_expires_at
         FROM webhook_delivery d
         JOIN delivery r ON r.id = d.id
         JOIN notification_endpoint e ON e.id = d.endpoint_id
        WHERE d.id = $1`,
      [deliveryId],
    );
    return rows[0] ?? null;
  }

  /** Fails deliveries that were never attempted (their jobs could not be queued). */
  abandonUnsent(deliveryIds: readonly string[], at: Date): Promise<void> {
    return this.records.abandonUnattempted(deliveryIds, 'not_queued', at);
  }
}
