import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type ChannelName, NotificationCategory } from '../entities.js';

export interface NotificationView {
  id: string;
  category: string;
  event_type: string;
  organization_id: string | null;
  organization_name: string | null;
  payload: Record<string, unknown>;
  read_at: Date | null;
  created_at: Date;
}

export interface NewNotification {
  accountId: string;
  organizationId: string | null;
  categoryKey: string;
  eventType: string;
  payload: Record<string, unknown>;
}

const VIEW = `
  SELECT n.id, n.category_key AS category, n.event_type, n.organization_id,
         o.name AS organization_name, n.payload, n.read_at, n.created_at
    FROM notification n
    LEFT JOIN organization o ON o.id = n.organization_id`;

/** The in-app notifications of accounts; every query is bound to one account. */
@Injectable()
export class NotificationCenterRepository {
  constructor(private readonly dataSource: DataSource) {}

  categories(): Promise<NotificationCategory[]> {
    return this.dataSource.getRepository(NotificationCategory).find({ order: { position: 'ASC' } });
  }

  async list(
    accountId: string,
    unread: boolean | undefined,
    limit: number,
    offset: number,
  ): Promise<{ items: NotificationView[]; total: number }> {
    const filter =
      unread === undefined ? '' : unread ? 'AND n.read_at IS NULL' : 'AND n.read_at IS NOT NULL';
    const items: NotificationView[] = await this.dataSource.query(
      `${VIEW} WHERE n.account_id = $1 ${filter} ORDER BY n.created_at DESC, n.id DESC LIMIT $2 OFFSET $3`,
      [accountId, limit, offset],
    );
    const totals: Array<{ total: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM notification n WHERE n.account_id = $1 ${filter}`,
      [accountId],
    );
    return { items, total: totals[0].total };
  }

  async unreadCount(accountId: string): Promise<number> {
    const rows: Array<{ count: number }> = await this.dataSource.query(
      'SELECT count(*)::int AS count FROM notification WHERE account_id = $1 AND read_at IS NULL',
      [accountId],
    );
    return rows[0].count;
  }

  /** Marks one notification read (keeping an earlier read_at); null when it is not the account's. */
  async markRead(
    accountId: string,
    id: string,
    now: Date,
  ): Promise<{ id: string; read_at: Date } | null> {
    const rows: Array<{ id: string; read_at: Date }> = await this.dataSource.query(
      `WITH marked AS (
         UPDATE notification SET read_at = COALESCE(read_at, $3)
          WHERE account_id = $1 AND id = $2 RETURNING id, read_at)
       SELECT id, read_at FROM marked`,
      [accountId, id, now],
    );
    return rows[0] ?? null;
  }

  /** Every unread notification of the account, in every organization. */
  async markAllRead(accountId: string, now: Date): Promise<number> {
    const rows: Array<{ n: number }> = await this.dataSource.query(
      `WITH marked AS (
         UPDATE notification SET read_at = $2 WHERE account_id = $1 AND read_at IS NULL RETURNING 1)
       SELECT count(*)::int AS n FROM marked`,
      [accountId, now],
    );
    return rows[0].n;
  }

  /**
   * One INSERT for every row; answers the new rows in the order given (the organization's name
   * is read per row, since a join could reorder them).
   */
  async insertMany(rows: NewNotification[], now: Date): Promise<NotificationView[]> {
    if (rows.length === 0) return [];
    return this.dataSource.query(
      `WITH inserted AS (
         INSERT INTO notification (account_id, organization_id, category_key, event_type, payload, created_at)
         SELECT a, o, c, e, p, t
           FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::jsonb[], $6::timestamptz[])
                WITH ORDINALITY AS r (a, o, c, e, p, t, n)
          ORDER BY n
         RETURNING *)
       SELECT n.id, n.account_id, n.category_key AS category, n.event_type, n.organization_id,
              (SELECT o.name FROM organization o WHERE o.id = n.organization_id) AS organization_name,
              n.payload, n.read_at, n.created_at
         FROM inserted n`,
      [
        rows.map((r) => r.accountId),
        rows.map((r) => r.organizationId),
        rows.map((r) => r.categoryKey),
        rows.map((r) => r.eventType),
        rows.map((r) => JSON.stringify(r.payload)),
        rows.map(() => now),
      ],
    );
  }
}

export type { ChannelName };
