import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotificationSchedule, PendingEmail } from '../entities.js';

/** E-mail held for quiet hours or a digest, and the accounts that have some. */
@Injectable()
export class DigestRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Accounts with unsent held e-mail, with their schedule (absent: defaults apply). */
  async accountsWithPending(): Promise<
    Array<{ accountId: string; schedule: NotificationSchedule | undefined }>
  > {
    const rows: Array<{ account_id: string }> = await this.dataSource.query(
      'SELECT DISTINCT account_id FROM pending_email WHERE sent_at IS NULL',
    );
    const ids = rows.map((r) => r.account_id);
    if (ids.length === 0) return [];
    const schedules = await this.dataSource
      .getRepository(NotificationSchedule)
      .createQueryBuilder('s')
      .where('s.account_id = ANY(:ids)', { ids })
      .getMany();
    const byAccount = new Map(schedules.map((s) => [s.accountId, s]));
    return ids.map((accountId) => ({ accountId, schedule: byAccount.get(accountId) }));
  }

  /** Unsent held e-mail of one account, oldest first (a plain query: this runs per flush). */
  async pending(accountId: string): Promise<PendingEmail[]> {
    return this.dataSource.query(
      `SELECT id, account_id AS "accountId", notification_id AS "notificationId",
              category_key AS "categoryKey", subject, text, html,
              created_at AS "createdAt", sent_at AS "sentAt"
         FROM pending_email
        WHERE account_id = $1 AND sent_at IS NULL
        ORDER BY created_at, id`,
      [accountId],
    );
  }

  async schedule(accountId: string): Promise<NotificationSchedule | null> {
    return this.dataSource.getRepository(NotificationSchedule).findOneBy({ accountId });
  }

  /** Where and how a flush sends: the account's address and name, and its e-mail mode. */
  async recipient(
    accountId: string,
  ): Promise<{ login: string; name: string; emailMode: string | null } | null> {
    const rows: Array<{ login: string; name: string; emailMode: string | null }> =
      await this.dataSource.query(
        `SELECT a.login, a.name, s.email_mode AS "emailMode"
           FROM account a LEFT JOIN notification_schedule s ON s.account_id = a.id
          WHERE a.id = $1`,
        [accountId],
      );
    return rows[0] ?? null;
  }

  /** Marks what was sent, and when the last digest went out, in one (atomic) statement. */
  async markSent(accountId: string, ids: string[], now: Date, digest: boolean): Promise<void> {
    await this.dataSource.query(
      `WITH sent AS (
         UPDATE pending_email SET sent_at = $2 WHERE id = ANY($1::uuid[]) AND sent_at IS NULL
       ), delivered AS (
         UPDATE notification_delivery SET status = 'sent', updated_at = $2
          WHERE notification_id IN (SELECT notification_id FROM pending_email WHERE id = ANY($1::uuid[]))
            AND channel = 'email' AND status = 'held'
       )
       UPDATE notification_schedule SET last_digest_at = $2 WHERE account_id = $3 AND $4::boolean`,
      [ids, now, accountId, digest],
    );
  }
}
