import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { UsageLevel } from './usage-level.js';

/** An RGW user with the usage level last stored for it (0 before its first check). */
export interface UserUsageState {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  uid: string;
  level: UsageLevel;
  crossings: number;
}

/** rgw_user_usage_level, and the users the usage check walks. */
@Injectable()
export class UsageLevelsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The next users after `after` in id order (keyset), with their stored levels. */
  page(after: string | null, limit: number): Promise<UserUsageState[]> {
    return this.dataSource.query(
      `SELECT u.id, u.organization_id, u.project_id, u.name, u.uid,
              COALESCE(l.level, 0) AS level, COALESCE(l.crossings, 0) AS crossings
         FROM rgw_user u LEFT JOIN rgw_user_usage_level l ON l.rgw_user_id = u.id
        WHERE $1::uuid IS NULL OR u.id > $1
        ORDER BY u.id LIMIT $2`,
      [after, limit],
    );
  }

  async record(id: string, level: UsageLevel, crossings: number, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO rgw_user_usage_level (rgw_user_id, level, crossings, checked_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (rgw_user_id) DO UPDATE
         SET level = EXCLUDED.level, crossings = EXCLUDED.crossings, checked_at = EXCLUDED.checked_at`,
      [id, level, crossings, now],
    );
  }

  async organizationAdmins(organizationId: string): Promise<string[]> {
    const rows: Array<{ account_id: string }> = await this.dataSource.query(
      `SELECT account_id FROM membership WHERE organization_id = $1 AND role = 'admin'`,
      [organizationId],
    );
    return rows.map((r) => r.account_id);
  }
}
