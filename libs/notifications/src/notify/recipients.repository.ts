import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { insertDeliveries } from '../channels/deliveries.repository.js';
import type { AbsenceWindow, Channel } from '../delivery/decide.js';

export interface RecipientRow {
  id: string;
  login: string;
  name: string;
  is_platform_admin: boolean;
  is_org_admin: boolean;
  phone_number: string | null;
  phone_verified: boolean;
}

/** Everything the delivery decision needs about a set of recipients, in a few set-based reads. */
@Injectable()
export class RecipientsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The recipients as seen from the organization. A notification of no organization (about the
   * account itself: its logins, password, phone) concerns every organization of the account,
   * so its admin in any of them counts as an admin for it.
   */
  accounts(accountIds: string[], organizationId: string | null): Promise<RecipientRow[]> {
    return this.dataSource.query(
      `SELECT a.id, a.login, a.name, a.is_platform_admin,
              CASE WHEN $2::uuid IS NULL
                   THEN EXISTS (SELECT 1 FROM membership am WHERE am.account_id = a.id AND am.role = 'admin')
                   ELSE COALESCE(m.role = 'admin', false) END AS is_org_admin,
              a.phone_number, a.phone_verified_at IS NOT NULL AS phone_verified
         FROM account a
         LEFT JOIN membership m ON m.account_id = a.id AND m.organization_id = $2
        WHERE a.id = ANY($1::uuid[])`,
      [accountIds, organizationId],
    );
  }

  /** The admins of the organization. */
  async organizationAdmins(organizationId: string): Promise<string[]> {
    const rows: Array<{ account_id: string }> = await this.dataSource.query(
      `SELECT account_id FROM membership WHERE organization_id = $1 AND role = 'admin' ORDER BY account_id`,
      [organizationId],
    );
    return rows.map((r) => r.account_id);
  }

  async preferences(
    accountIds: string[],
    categoryKey: string,
  ): Promise<Map<string, Partial<Record<Channel, boolean>>>> {
    const rows: Array<{ account_id: string; channel: Channel; enabled: boolean }> =
      await this.dataSource.query(
        `SELECT account_id, channel, enabled FROM notification_preference
        WHERE account_id = ANY($1::uuid[]) AND category_key = $2`,
        [accountIds, categoryKey],
      );
    const byAccount = new Map<string, Partial<Record<Channel, boolean>>>();
    for (const row of rows)
      byAccount.set(row.account_id, {
        ...byAccount.get(row.account_id),
        [row.channel]: row.enabled,
      });
    return byAccount;
  }

  async activeAbsences(accountIds: string[], at: Date): Promise<Map<string, AbsenceWindow[]>> {
    const rows: Array<{ account_id: string; starts_at: Date; ends_at: Date }> =
      await this.dataSource.query(
        `SELECT account_id, starts_at, ends_at FROM notification_absence
        WHERE account_id = ANY($1::uuid[]) AND starts_at <= $2 AND ends_at > $2`,
        [accountIds, at],
      );
    const byAccount = new Map<string, AbsenceWindow[]>();
    for (const row of rows) {
      byAccount.set(row.account_id, [
        ...(byAccount.get(row.account_id) ?? []),
        { startsAt: row.starts_at, endsAt: row.ends_at },
      ]);
    }
    return byAccount;
  }

  async recordDeliveries(
    rows: Array<{
      notificationId: string | null;
      accountId: string;
      channel: 'email' | 'phone' | 'sms';
      status: string;
      reason: string | null;
    }>,
    now: Date,
  ): Promise<string[]> {
    if (rows.length === 0) return [];
    // Ids first so the ledger row and its delivery are written in one statement, in order.
    const inserted: Array<{ id: string }> = await this.dataSource.query(
      `WITH wanted AS (
         SELECT gen_random_uuid() AS id, t.*
           FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[])
                WITH ORDINALITY AS t (n, a, c, s, r, ord)
       ), ledger AS (
         INSERT INTO notification_delivery (id, notification_id, account_id)
         SELECT id, n, a FROM wanted
       ), delivery AS (
         ${insertDeliveries(`
         SELECT id, 'notification', c, CASE WHEN s = 'queued' THEN 'pending' ELSE s END, r,
                $6::timestamptz, $6::timestamptz
           FROM wanted`)}
       )
       SELECT id FROM wanted ORDER BY ord`,
      [
        rows.map((r) => r.notificationId),
        rows.map((r) => r.accountId),
        rows.map((r) => r.channel),
        rows.map((r) => r.status),
        rows.map((r) => r.reason),
        now,
      ],
    );
    return inserted.map((r) => r.id);
  }

  async holdEmails(
    rows: Array<{
      accountId: string;
      notificationId: string | null;
      categoryKey: string;
      subject: string;
      text: string;
      html: string | null;
    }>,
    now: Date,
  ): Promise<void> {
    if (rows.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO pending_email (account_id, notification_id, category_key, subject, text, html, created_at)
       SELECT a, n, c, s, t, h, $7 FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(a, n, c, s, t, h)`,
      [
        rows.map((r) => r.accountId),
        rows.map((r) => r.notificationId),
        rows.map((r) => r.categoryKey),
        rows.map((r) => r.subject),
        rows.map((r) => r.text),
        rows.map((r) => r.html),
        now,
      ],
    );
  }
}
