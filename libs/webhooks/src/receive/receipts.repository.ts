import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export const RECEIPT_OUTCOMES = [
  'reconciled',
  'unchanged',
  'no_match',
  'ignored',
  'invalid',
  'failed',
] as const;
export type ReceiptOutcome = (typeof RECEIPT_OUTCOMES)[number];

/** An app a push matched; `changed` false when it already ran the pushed digest. */
export interface ReceiptApp {
  app_id: string;
  project_id: string;
  name: string;
  digest: string;
  changed: boolean;
}

export interface ReceiptRow {
  id: string;
  webhook_id: string;
  received_at: Date;
  event_type: string | null;
  resource_url: string | null;
  digest: string | null;
  outcome: ReceiptOutcome;
  apps: ReceiptApp[];
  error: string | null;
}

export type NewReceipt = Omit<ReceiptRow, 'id'>;

const COLUMNS =
  'id, webhook_id, received_at, event_type, resource_url, digest, outcome, apps, error';

/** One row per authenticated receive of a webhook; pruned by age in batches. */
@Injectable()
export class ReceiptsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(receipt: NewReceipt): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO organization_webhook_receipt
         (webhook_id, received_at, event_type, resource_url, digest, outcome, apps, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)`,
      [
        receipt.webhook_id,
        receipt.received_at,
        receipt.event_type,
        receipt.resource_url,
        receipt.digest,
        receipt.outcome,
        JSON.stringify(receipt.apps),
        receipt.error,
      ],
    );
  }

  /** A page of a webhook's receipts, newest first. */
  async page(
    webhookId: string,
    limit: number,
    offset: number,
  ): Promise<{ items: ReceiptRow[]; total: number }> {
    const [items, counted] = await Promise.all([
      this.dataSource.query<ReceiptRow[]>(
        `SELECT ${COLUMNS} FROM organization_webhook_receipt
          WHERE webhook_id = $1
          ORDER BY received_at DESC, id DESC
          LIMIT $2 OFFSET $3`,
        [webhookId, limit, offset],
      ),
      this.dataSource.query<Array<{ total: number }>>(
        'SELECT count(*)::int AS total FROM organization_webhook_receipt WHERE webhook_id = $1',
        [webhookId],
      ),
    ]);
    return { items, total: counted[0].total };
  }

  /** Deletes up to `batch` receipts received before `cutoff`. */
  async prune(cutoff: Date, batch: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM organization_webhook_receipt
        WHERE id IN (SELECT id FROM organization_webhook_receipt WHERE received_at < $1 LIMIT $2)`,
      [cutoff, batch],
    );
    return count;
  }
}
