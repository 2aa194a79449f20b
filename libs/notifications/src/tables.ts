import type { TableOwnership } from '@platform/database';

/** The tables only notifications writes. */
export const NOTIFICATIONS_TABLES: TableOwnership = {
  library: 'notifications',
  tables: [
    'broadcast',
    'broadcast_dismissal',
    'delivery',
    'delivery_attempt',
    'notification',
    'notification_absence',
    'notification_category',
    'notification_delivery',
    'notification_fanout',
    'notification_preference',
    'notification_schedule',
    'pending_email',
    'phone_verification',
    'platform_incident',
  ],
};
