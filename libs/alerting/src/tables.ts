import type { TableOwnership } from '@platform/database';

/** The tables only alerting writes. */
export const ALERTING_TABLES: TableOwnership = {
  library: 'alerting',
  tables: [
    'alert',
    'alert_bundle',
    'alert_bundle_member',
    'alert_dispatch',
    'alert_dispatch_owed',
    'alert_dispatch_sweep',
    'alert_event',
    'alert_ingest_severity_map',
    'alert_route',
    'alert_route_endpoint',
    'alert_search',
    'alert_search_replaced',
    'alert_search_state',
    'alert_search_total',
    'alert_silence',
    'heartbeat',
    'maintenance_window',
    'notification_endpoint',
    'test_alert',
    'webhook_delivery',
    // Dropped for delivery_attempt (1764000000035); its released migrations still create it.
    'webhook_delivery_attempt',
  ],
  createdElsewhere: {
    // Test alerts came with the audit log's migration.
    test_alert: 'audit',
  },
};
