import type { MigrationClass } from '@platform/database';
import { Notifications1764000000001 } from './1764000000001-notifications.js';
import { NotificationIdempotencyKey1764000000015 } from './1764000000015-notification-idempotency-key.js';
import { PlatformIncidents1764000000031 } from './1764000000031-platform-incidents.js';
import { DeliveryRecord1764000000034 } from './1764000000034-delivery-record.js';

/**
 * The migrations of notifications's tables, in order. Released ones are never edited (names and
 * timestamps are recorded in deployed databases); add new ones at the end.
 */
export const NOTIFICATIONS_MIGRATIONS: MigrationClass[] = [
  Notifications1764000000001,
  NotificationIdempotencyKey1764000000015,
  PlatformIncidents1764000000031,
  DeliveryRecord1764000000034,
];
