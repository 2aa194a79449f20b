import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type ChannelName, NotificationPreference } from '../entities.js';

export interface PreferenceRow {
  category_key: string;
  channel: ChannelName;
  enabled: boolean;
}

@Injectable()
export class PreferencesRepository {
  constructor(private readonly dataSource: DataSource) {}

  list(accountId: string): Promise<NotificationPreference[]> {
    return this.dataSource
      .getRepository(NotificationPreference)
      .find({ where: { accountId }, order: { categoryKey: 'ASC', channel: 'ASC' } });
  }

  /** All sent rows in one statement, so a request saves all of them or none. */
  async upsert(accountId: string, rows: PreferenceRow[], now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO notification_preference (account_id, category_key, channel, enabled, updated_at)
       SELECT $1, category_key, channel, enabled, $5
         FROM unnest($2::text[], $3::text[], $4::boolean[]) AS r(category_key, channel, enabled)
       ON CONFLICT (account_id, category_key, channel)
       DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at`,
      [
        accountId,
        rows.map((r) => r.category_key),
        rows.map((r) => r.channel),
        rows.map((r) => r.enabled),
        now,
      ],
    );
  }
}
