import { Injectable } from '@nestjs/common';
import { Batcher, type BatcherOptions } from '@platform/core';
import { DataSource } from 'typeorm';
import { NotificationSchedule, PendingEmail } from '../entities.js';

/**
 * A statement costs PostgreSQL far more than one more account in it: under load, a process's
 * flush jobs share one read and one write about every 20 ms.
 */
export const DIGEST_BATCHING: BatcherOptions = { maxBatch: 500, intervalMs: 20 };

/** Where and how a flush sends: the account's address and name, and its e-mail mode. */
export interface DigestRecipient {
  login: string;
  name: string;
  emailMode: string | null;
}

/** What one account's flush works on, read in one go. */
export interface FlushState {
  recipient: DigestRecipient | null;
  pending: PendingEmail[];
}

interface MarkRequest {
  accountId: string;
  ids: string[];
  now: Date;
  digest: boolean;
}

interface FlushRow {
  accountId: string;
  login: string;
  name: string;
  emailMode: string | null;
  id: string | null;
  notificationId: string | null;
  categoryKey: string;
  subject: string;
  text: string;
  html: string | null;
  createdAt: Date;
  sentAt: Date | null;
}

/**
 * E-mail held for quiet hours or a digest, and the accounts that have some. The per-account
 * reads and writes of flush jobs running side by side are gathered into set-based statements,
 * one round trip for many accounts; each job still gets (and waits for) its own result.
 */
@Injectable()
export class DigestRepository {
  private readonly states = new Batcher<string, FlushState>(
    (ids) => this.loadFlushStates(ids),
    DIGEST_BATCHING,
  );
  private readonly marks = new Batcher<MarkRequest, void>(
    (requests) => this.markSentMany(requests),
    DIGEST_BATCHING,
  );

  constructor(private readonly dataSource: DataSource) {}

  /** Accounts with unsent held e-mail, with their schedule (absent: defaults apply). */
  async accountsWithPending(): Promise<
    Array<{ accountId: string; schedule: NotificationSchedule | undefined }>
  > {
    // One plain query: at sweep scale, hydrating entities costs more than the query itself.
    const rows: Array<NotificationSchedule & { hasSchedule: boolean }> =
      await this.dataSource.query(
        `SELECT p.account_id AS "accountId", s.account_id IS NOT NULL AS "hasSchedule",
                s.email_mode AS "emailMode", s.quiet_start AS "quietStart",
                s.quiet_end AS "quietEnd", s.timezone, s.digest_hour AS "digestHour",
                s.last_digest_at AS "lastDigestAt", s.updated_at AS "updatedAt"
           FROM (SELECT DISTINCT account_id FROM pending_email WHERE sent_at IS NULL) p
           LEFT JOIN notification_schedule s ON s.account_id = p.account_id`,
      );
    return rows.map(({ hasSchedule, ...schedule }) => ({
      accountId: schedule.accountId,
      schedule: hasSchedule ? schedule : undefined,
    }));
  }

  /** The recipient and the unsent held e-mail (oldest first) of one account. */
  flushState(accountId: string): Promise<FlushState> {
    return this.states.add(accountId);
  }

  async schedule(accountId: string): Promise<NotificationSchedule | null> {
    return this.dataSource.getRepository(NotificationSchedule).findOneBy({ accountId });
  }

  /**
   * Marks what was sent, and when the last digest went out. Concurrent calls share one
   * (atomic) statement; each resolves once that statement committed.
   */
  markSent(accountId: string, ids: string[], now: Date, digest: boolean): Promise<void> {
    return this.marks.add({ accountId, ids, now, digest });
  }

  private async loadFlushStates(accountIds: string[]): Promise<FlushState[]> {
    const rows: FlushRow[] = await this.dataSource.query(
      `SELECT q.account_id AS "accountId", a.login, a.name, s.email_mode AS "emailMode",
              p.id, p.notification_id AS "notificationId", p.category_key AS "categoryKey",
              p.subject, p.text, p.html, p.created_at AS "createdAt", p.sent_at AS "sentAt"
         FROM unnest($1::uuid[]) AS q(account_id)
         JOIN account a ON a.id = q.account_id
         LEFT JOIN notification_schedule s ON s.account_id = a.id
         LEFT JOIN pending_email p ON p.account_id = a.id AND p.sent_at IS NULL
        ORDER BY p.created_at, p.id`,
      [accountIds],
    );
    const states = new Map<string, FlushState>();
    for (const row of rows) {
      let state = states.get(row.accountId);
      if (!state) {
        state = {
          recipient: { login: row.login, name: row.name, emailMode: row.emailMode },
          pending: [],
        };
        states.set(row.accountId, state);
      }
      if (row.id !== null) {
        state.pending.push({
          id: row.id,
          accountId: row.accountId,
          notificationId: row.notificationId,
          categoryKey: row.categoryKey,
          subject: row.subject,
          text: row.text,
          html: row.html,
          createdAt: row.createdAt,
          sentAt: row.sentAt,
        });
      }
    }
    return accountIds.map((id) => states.get(id) ?? { recipient: null, pending: [] });
  }

  private async markSentMany(requests: MarkRequest[]): Promise<void[]> {
    const sentIds: string[] = [];
    const sentAt: Date[] = [];
    const digestAccounts: string[] = [];
    const digestAt: Date[] = [];
    for (const request of requests) {
      for (const id of request.ids) {
        sentIds.push(id);
        sentAt.push(request.now);
      }
      if (request.digest) {
        digestAccounts.push(request.accountId);
        digestAt.push(request.now);
      }
    }
    await this.dataSource.query(
      `WITH marked AS (
         SELECT id, at FROM unnest($1::uuid[], $2::timestamptz[]) AS m(id, at)
       ), sent AS (
         UPDATE pending_email p SET sent_at = m.at
           FROM marked m WHERE p.id = m.id AND p.sent_at IS NULL
       ), delivered AS (
         UPDATE delivery d SET status = 'sent', finished_at = m.at
           FROM notification_delivery n, pending_email p JOIN marked m ON m.id = p.id
          WHERE d.id = n.id AND n.notification_id = p.notification_id AND d.channel = 'email'
            AND d.status = 'held'
       )
       UPDATE notification_schedule s SET last_digest_at = x.at
         FROM unnest($3::uuid[], $4::timestamptz[]) AS x(account_id, at)
        WHERE s.account_id = x.account_id`,
      [sentIds, sentAt, digestAccounts, digestAt],
    );
    return requests.map(() => undefined);
  }
}
