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
  /** The account's one notification with this key; a repeated insert keeps the first. */
  idempotencyKey?: string | null;
}

/** A notification as an insert answers it: with its account, and whether this insert wrote it. */
export type InsertedNotification = NotificationView & { account_id: string; created: boolean };

const VIEW = `
  SELECT n.id, n.category_key AS category, n.event_type, n.organization_id,
         o.name AS organization_name, n.payload, n.read_at, n.created_at
    FROM notification n
    LEFT JOIN organization o ON o.id = n.organization_id`;

/** The view of `n` and its account and key, without a join (which could reorder rows). */
const INSERTED = `n.id, n.category_key AS category, n.event_type, n.organization_id,
  (SELECT o.name FROM organization o WHERE o.id = n.organization_id) AS organization_name,
  n.payload, n.read_at, n.created_at, n.account_id, n.idempotency_key`;

/**
 * `n` is of the organization in parameter $2, or any when it is null: a static token's requests
 * see only its own organization's notifications, a login session's all of the account's.
 */
const IN_ORGANIZATION = '($2::uuid IS NULL OR n.organization_id = $2::uuid)';

/** Unread notifications of an account: in all, and per organization (those of none only count in all). */
export interface UnreadCounts {
  total: number;
  byOrganization: Record<string, number>;
}

/**
 * Inserts notification rows selected by `select` (id, account_id, organization_id, category_key,
 * event_type, payload, created_at, idempotency_key, in that order), for a statement of another
 * library that notifies in its own transaction; append a RETURNING clause as needed. A keyed row
 * whose account already has a notification with that key writes nothing.
 */
export function insertNotifications(select: string): string {
  return `INSERT INTO notification
    (id, account_id, organization_id, category_key, event_type, payload, created_at,
     idempotency_key)
  ${select}
  ON CONFLICT (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`;
}

/** The in-app notifications of accounts; every query is bound to one account. */
@Injectable()
export class NotificationCenterRepository {
  constructor(private readonly dataSource: DataSource) {}

  categories(): Promise<NotificationCategory[]> {
    return this.dataSource.getRepository(NotificationCategory).find({ order: { position: 'ASC' } });
  }

  async list(
    accountId: string,
    organizationId: string | null,
    unread: boolean | undefined,
    limit: number,
    offset: number,
  ): Promise<{ items: NotificationView[]; total: number }> {
    const filter =
      unread === undefined ? '' : unread ? 'AND n.read_at IS NULL' : 'AND n.read_at IS NOT NULL';
    const items: NotificationView[] = await this.dataSource.query(
      `${VIEW} WHERE n.account_id = $1 AND ${IN_ORGANIZATION} ${filter}
        ORDER BY n.created_at DESC, n.id DESC LIMIT $3 OFFSET $4`,
      [accountId, organizationId, limit, offset],
    );
    const totals: Array<{ total: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM notification n
        WHERE n.account_id = $1 AND ${IN_ORGANIZATION} ${filter}`,
      [accountId, organizationId],
    );
    return { items, total: totals[0].total };
  }

  async unreadCount(accountId: string, organizationId: string | null): Promise<number> {
    const rows: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM notification n
        WHERE n.account_id = $1 AND ${IN_ORGANIZATION} AND n.read_at IS NULL`,
      [accountId, organizationId],
    );
    return rows[0].count;
  }

  /** Each account's unread notifications, in all and per organization, in one statement. */
  async unreadCounts(accountIds: readonly string[]): Promise<Map<string, UnreadCounts>> {
    const rows: Array<{ account_id: string; organization_id: string | null; n: number }> =
      await this.dataSource.query(
        `SELECT account_id, organization_id, count(*)::int AS n FROM notification
          WHERE account_id = ANY($1::uuid[]) AND read_at IS NULL
          GROUP BY account_id, organization_id`,
        [accountIds],
      );
    const counts = new Map<string, UnreadCounts>(
      accountIds.map((id) => [id, { total: 0, byOrganization: {} }]),
    );
    for (const row of rows) {
      const count = counts.get(row.account_id)!;
      count.total += row.n;
      if (row.organization_id) count.byOrganization[row.organization_id] = row.n;
    }
    return counts;
  }

  /**
   * Marks one notification read (keeping an earlier read_at); null when it is not the
   * account's, or not of the organization given.
   */
  async markRead(
    accountId: string,
    organizationId: string | null,
    id: string,
    now: Date,
  ): Promise<{ id: string; read_at: Date; organization_id: string | null } | null> {
    const rows: Array<{ id: string; read_at: Date; organization_id: string | null }> =
      await this.dataSource.query(
        `WITH marked AS (
           UPDATE notification n SET read_at = COALESCE(n.read_at, $4)
            WHERE n.account_id = $1 AND ${IN_ORGANIZATION} AND n.id = $3
            RETURNING n.id, n.read_at, n.organization_id)
         SELECT id, read_at, organization_id FROM marked`,
        [accountId, organizationId, id, now],
      );
    return rows[0] ?? null;
  }

  /** Every unread notification of the account, of one organization or (null) of all. */
  async markAllRead(accountId: string, organizationId: string | null, now: Date): Promise<number> {
    const rows: Array<{ n: number }> = await this.dataSource.query(
      `WITH marked AS (
         UPDATE notification n SET read_at = $3
          WHERE n.account_id = $1 AND ${IN_ORGANIZATION} AND n.read_at IS NULL RETURNING 1)
       SELECT count(*)::int AS n FROM marked`,
      [accountId, organizationId, now],
    );
    return rows[0].n;
  }

  /**
   * One INSERT for every row; answers a notification per row, in the order given. A keyed row whose
   * account already has a notification with that key writes nothing and answers that
   * notification, `created: false`.
   */
  async insertMany(rows: NewNotification[], now: Date): Promise<InsertedNotification[]> {
    if (rows.length === 0) return [];
    const inserted: Array<InsertedNotification & { idempotency_key: string | null }> =
      await this.dataSource.query(
        `WITH inserted AS (
           ${insertNotifications(`
           SELECT gen_random_uuid(), a, o, c, e, p, t, k
             FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::jsonb[],
                         $6::timestamptz[], $7::text[])
                  WITH ORDINALITY AS r (a, o, c, e, p, t, k, n)
            ORDER BY n`)}
           RETURNING *)
         SELECT ${INSERTED}, true AS created
           FROM inserted n`,
        [
          rows.map((r) => r.accountId),
          rows.map((r) => r.organizationId),
          rows.map((r) => r.categoryKey),
          rows.map((r) => r.eventType),
          rows.map((r) => JSON.stringify(r.payload)),
          rows.map(() => now),
          rows.map((r) => r.idempotencyKey ?? null),
        ],
      );
    // Rows come back in insertion order, without the keyed ones that were there already.
    const keyOf = (accountId: string, key: string) => `${accountId} ${key}`;
    const byKey = new Map(
      inserted
        .filter((n) => n.idempotency_key !== null)
        .map((n) => [keyOf(n.account_id, n.idempotency_key!), n]),
    );
    const unkeyed = inserted.filter((n) => n.idempotency_key === null).values();
    const repeated = rows.filter(
      (r) => r.idempotencyKey && !byKey.has(keyOf(r.accountId, r.idempotencyKey)),
    );
    if (repeated.length > 0) {
      // A statement of its own: it sees a row that a concurrent insert committed meanwhile.
      const existing: Array<InsertedNotification & { idempotency_key: string }> =
        await this.dataSource.query(
          `SELECT ${INSERTED}, false AS created
             FROM unnest($1::uuid[], $2::text[]) AS r (a, k)
             JOIN notification n ON n.account_id = r.a AND n.idempotency_key = r.k`,
          [repeated.map((r) => r.accountId), repeated.map((r) => r.idempotencyKey)],
        );
      for (const n of existing) byKey.set(keyOf(n.account_id, n.idempotency_key), n);
    }
    const answered = new Set<string>();
    return rows.map(({ accountId, idempotencyKey }) => {
      if (!idempotencyKey) return strip(unkeyed.next().value!);
      const key = keyOf(accountId, idempotencyKey);
      const found = byKey.get(key);
      // Only when the account went (and its notifications with it) since the insert.
      if (!found) throw new Error(`notification ${idempotencyKey} of ${accountId} is gone`);
      // The same key twice in one call: the later row repeats the earlier one.
      const notification = answered.has(key) ? { ...found, created: false } : found;
      answered.add(key);
      return strip(notification);
    });
  }
}

/** The notification without the key it was looked up by. */
function strip({
  idempotency_key: _key,
  ...notification
}: InsertedNotification & { idempotency_key: string | null }): InsertedNotification {
  return notification;
}

export type { ChannelName };
