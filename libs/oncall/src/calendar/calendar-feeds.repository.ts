import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface CalendarFeedRoster {
  id: string;
  project_id: string;
  name: string;
  calendar_feed_nonce: string | null;
}

/** The calendar feed nonces of rosters (`on_call_roster.calendar_feed_nonce`). */
@Injectable()
export class CalendarFeedsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Replaces the roster's nonce; false when the project has no such roster. */
  async replaceNonce(projectId: string, rosterId: string, nonce: string): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      'UPDATE on_call_roster SET calendar_feed_nonce = $3 WHERE project_id = $1 AND id = $2',
      [projectId, rosterId, nonce],
    );
    return affected > 0;
  }

  /** A roster by id alone, for its feed URL (which names no project). */
  async find(rosterId: string): Promise<CalendarFeedRoster | null> {
    const rows = await this.dataSource.query<CalendarFeedRoster[]>(
      'SELECT id, project_id, name, calendar_feed_nonce FROM on_call_roster WHERE id = $1',
      [rosterId],
    );
    return rows[0] ?? null;
  }
}
