import type { MigrationClass } from '@platform/database';
import { Alerts1764000000003 } from './1764000000003-alerts.js';
import { AlertSuppression1764000000004 } from './1764000000004-alert-suppression.js';
import { NotificationEndpoints1764000000005 } from './1764000000005-notification-endpoints.js';
import { AlertRoutes1764000000006 } from './1764000000006-alert-routes.js';
import { AlertSearch1764000000008 } from './1764000000008-alert-search.js';
import { AlertSearchReplaced1764000000014 } from './1764000000014-alert-search-replaced.js';
import { AlertDispatchResolution1764000000016 } from './1764000000016-alert-dispatch-resolution.js';
import { AlertDispatchOutbox1764000000017 } from './1764000000017-alert-dispatch-outbox.js';
import { IngestSeverityMaps1764000000027 } from './1764000000027-ingest-severity-maps.js';
import { Heartbeats1764000000028 } from './1764000000028-heartbeats.js';
import { AlertBundles1764000000033 } from './1764000000033-alert-bundles.js';
import { EndpointDeliveryRecord1764000000035 } from './1764000000035-endpoint-delivery-record.js';

/**
 * The migrations of alerting's tables, in order. Released ones are never edited (names and
 * timestamps are recorded in deployed databases); add new ones at the end.
 */
export const ALERTING_MIGRATIONS: MigrationClass[] = [
  Alerts1764000000003,
  AlertSuppression1764000000004,
  NotificationEndpoints1764000000005,
  AlertRoutes1764000000006,
  AlertSearch1764000000008,
  AlertSearchReplaced1764000000014,
  AlertDispatchResolution1764000000016,
  AlertDispatchOutbox1764000000017,
  IngestSeverityMaps1764000000027,
  Heartbeats1764000000028,
  AlertBundles1764000000033,
  EndpointDeliveryRecord1764000000035,
];
