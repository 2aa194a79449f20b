import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { DeliveryOutcome } from './delivery-attempt.js';

/** A notification_delivery row's status: `queued` until sent, failed or skipped. */
export type NotificationDeliveryStatus = 'queued' | 'sent' | 'failed' | 'skipped';

/** The ledger of what notify() sent by e-mail, SMS and call: one row per account and channel. */
@Injectable()
export class NotificationDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records an attempt's outcome on its row (a pending outcome stays `queued`, with the last
   * error as reason); false when the row no longer exists (its notification was deleted).
   */
  /** As `record`, for many rows in one statement; answers the ids found. */
  async recordMany(
    records: ReadonlyArray<{ deliveryId: string; outcome: DeliveryOutcome }>,
    now: Date,
  ): Promise<Set<string>> {
    if (records.length === 0) return new Set();
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `UPDATE notification_delivery d
          SET status = r.status, reason = r.reason,
              attempts = d.attempts + CASE WHEN r.attempted THEN 1 ELSE 0 END, updated_at = $5
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[])
              AS r (id, status, reason, attempted)
        WHERE d.id = r.id
        RETURNING d.id`,
      [
        records.map((r) => r.deliveryId),
        records.map((r) => (r.outcome.status === 'pending' ? 'queued' : r.outcome.status)),
        records.map((r) => r.outcome.reason?.slice(0, 500) ?? null),
        records.map((r) => r.outcome.attempted),
        now,
      ],
    );
    return new Set(rows.map((r) => r.id));
  }

  async record(deliveryId: string, outcome: DeliveryOutcome, now: Date): Promise<boolean> {
    const status: NotificationDeliveryStatus =
      outcome.status === 'pending' ? 'queued' : outcome.status;
    // pg answers an UPDATE as [rows, affected count].
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE notification_delivery
          SET status = $2, reason = $3,
              attempts = attempts + CASE WHEN $5 THEN 1 ELSE 0 END, updated_at = $4
        WHERE id = $1`,
      [deliveryId, status, outcome.reason?.slice(0, 500) ?? null, now, outcome.attempted],
    );
    return affected > 0;
  }
}
