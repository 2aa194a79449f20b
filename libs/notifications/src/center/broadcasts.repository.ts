import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Broadcast } from '../entities.js';
import { FEATURE_AVAILABLE } from '../fan-out/feature-availability.js';

export const ACTIVE_BROADCASTS_LIMIT = 10;

/** A banner of GET /broadcasts/active: a broadcast, or an open platform incident. */
export type BannerRow = Pick<
  Broadcast,
  'id' | 'title' | 'body' | 'severity' | 'banner' | 'publishedAt'
>;

@Injectable()
export class BroadcastsRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(id: string): Promise<Broadcast | null> {
    return this.dataSource.getRepository(Broadcast).findOneBy({ id });
  }

  /**
   * The banners the account sees, newest first: published banner broadcasts it has not
   * dismissed, and the open platform incidents that concern it (every account for one without
   * affected features, else the members of organizations with one of them Available). An
   * incident's banner stays until it is resolved.
   */
  active(accountId: string, now: Date): Promise<BannerRow[]> {
    return this.dataSource.query(
      `SELECT id, title, body, severity, banner, published_at AS "publishedAt" FROM (
         SELECT b.id, b.title, b.body, b.severity, b.banner, b.published_at FROM broadcast b
          WHERE b.banner AND b.published_at <= $2
            AND NOT EXISTS (SELECT 1 FROM broadcast_dismissal d
                             WHERE d.broadcast_id = b.id AND d.account_id = $1)
         UNION ALL
         SELECT i.id, i.title, i.body, i.severity, true, i.opened_at FROM platform_incident i
          WHERE i.resolved_at IS NULL AND i.opened_at <= $2
            AND (i.affected_features IS NULL OR EXISTS (
                  SELECT 1 FROM membership m
                    JOIN project p ON p.organization_id = m.organization_id
                    JOIN feature_grant g ON g.project_id = p.id
                    LEFT JOIN feature_limit l
                      ON l.organization_id = p.organization_id AND l.feature_key = g.feature_key
                   WHERE m.account_id = $1 AND g.feature_key = ANY(i.affected_features)
                     AND ${FEATURE_AVAILABLE}))
       ) banners
       ORDER BY published_at DESC, id DESC
       LIMIT ${ACTIVE_BROADCASTS_LIMIT}`,
      [accountId, now],
    );
  }

  /** Idempotent; an unknown broadcast is silently ignored. */
  async dismiss(accountId: string, id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO broadcast_dismissal (broadcast_id, account_id, dismissed_at)
       SELECT id, $2, $3 FROM broadcast WHERE id = $1
       ON CONFLICT DO NOTHING`,
      [id, accountId, now],
    );
  }
}
