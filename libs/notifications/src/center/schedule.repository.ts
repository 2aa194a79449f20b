import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotificationSchedule } from '../entities.js';

@Injectable()
export class ScheduleRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(accountId: string): Promise<NotificationSchedule | null> {
    return this.dataSource.getRepository(NotificationSchedule).findOneBy({ accountId });
  }

  findMany(accountIds: string[]): Promise<NotificationSchedule[]> {
    if (accountIds.length === 0) return Promise.resolve([]);
    return this.dataSource
      .getRepository(NotificationSchedule)
      .createQueryBuilder('s')
      .where('s.account_id = ANY(:ids)', { ids: accountIds })
      .getMany();
  }

  /** The account's single row, created or replaced as a whole. */
  async save(schedule: Omit<NotificationSchedule, 'lastDigestAt'>): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO notification_schedule (account_id, email_mode, quiet_start, quiet_end, timezone, digest_hour, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (account_id) DO UPDATE SET email_mode = EXCLUDED.email_mode, quiet_start = EXCLUDED.quiet_start,
         quiet_end = EXCLUDED.quiet_end, timezone = EXCLUDED.timezone, digest_hour = EXCLUDED.digest_hour,
         updated_at = EXCLUDED.updated_at`,
      [
        schedule.accountId,
        schedule.emailMode,
        schedule.quietStart,
        schedule.quietEnd,
        schedule.timezone,
        schedule.digestHour,
        schedule.updatedAt,
      ],
    );
  }
}
