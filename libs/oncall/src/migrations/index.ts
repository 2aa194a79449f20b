import type { MigrationClass } from '@platform/database';
import { RosterCalendarFeeds1764000000029 } from './1764000000029-roster-calendar-feeds.js';

/**
 * The migrations of oncall's own, in order (its tables were created by the alerting and
 * escalation migrations before they moved here). Released ones are never edited; add new
 * ones at the end.
 */
export const ONCALL_MIGRATIONS: MigrationClass[] = [RosterCalendarFeeds1764000000029];
