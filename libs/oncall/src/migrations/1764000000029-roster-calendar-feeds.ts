import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The calendar feed of an on-call roster: `calendar_feed_nonce` is the changing part of its
 * signed URL (null: no feed yet). Each new feed replaces it, so the previous URL stops working;
 * the URL itself is not stored.
 */
export class RosterCalendarFeeds1764000000029 implements MigrationInterface {
  name = 'RosterCalendarFeeds1764000000029';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE on_call_roster ADD COLUMN calendar_feed_nonce text');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE on_call_roster DROP COLUMN calendar_feed_nonce');
  }
}
