import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Rows with a retention period, deleted by age in bounded batches (short locks, small WAL bursts). */
@Injectable()
export class RetentionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Deletes up to `batch` webhook deliveries (their attempts cascade) created before `cutoff`. */
  pruneDeliveries(cutoff: Date, batch: number): Promise<number> {
    return this.pruneBatch('webhook_delivery', cutoff, batch);
  }

  /** Deletes up to `batch` alert timeline events created before `cutoff`. */
  pruneAlertEvents(cutoff: Date, batch: number): Promise<number> {
    return this.pruneBatch('alert_event', cutoff, batch);
  }

  private async pruneBatch(
    table: 'webhook_delivery' | 'alert_event',
    cutoff: Date,
    batch: number,
  ): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM ${table}
        WHERE id IN (SELECT id FROM ${table} WHERE created_at < $1 LIMIT $2)`,
      [cutoff, batch],
    );
    return count;
  }
}
