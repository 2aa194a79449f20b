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
