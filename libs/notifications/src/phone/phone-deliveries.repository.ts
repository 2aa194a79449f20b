import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export type PhoneDeliveryStatus = 'queued' | 'sent' | 'failed';

/** Writes the outcome of each SMS or call attempt to its notification_delivery row. */
@Injectable()
export class PhoneDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Counts the attempt; false when the row no longer exists (its notification was deleted). */
  async recordAttempt(
    deliveryId: string,
    status: PhoneDeliveryStatus,
    reason: string | null,
    now: Date,
  ): Promise<boolean> {
    // pg answers an UPDATE as [rows, affected count].
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE notification_delivery
          SET status = $2, reason = $3, attempts = attempts + 1, updated_at = $4
        WHERE id = $1`,
      [deliveryId, status, reason, now],
    );
    return affected > 0;
  }
}
