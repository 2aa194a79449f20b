import type { MigrationInterface } from 'typeorm';
import { Identity1764000000000 } from './1764000000000-identity.js';
import { Notifications1764000000001 } from './1764000000001-notifications.js';
import { Capabilities1764000000002 } from './1764000000002-capabilities.js';
import { Alerts1764000000003 } from './1764000000003-alerts.js';
import { AlertSuppression1764000000004 } from './1764000000004-alert-suppression.js';
import { NotificationEndpoints1764000000005 } from './1764000000005-notification-endpoints.js';
import { AlertRoutes1764000000006 } from './1764000000006-alert-routes.js';
import { Escalation1764000000007 } from './1764000000007-escalation.js';
import { AlertSearch1764000000008 } from './1764000000008-alert-search.js';
import { AuditLog1764000000009 } from './1764000000009-audit-log.js';
import { AlertInsights1764000000010 } from './1764000000010-alert-insights.js';
import { InsightsRollups1764000000011 } from './1764000000011-insights-rollups.js';
import { EscalationPageIndexes1764000000012 } from './1764000000012-escalation-page-indexes.js';
import { EscalationStepPosition1764000000013 } from './1764000000013-escalation-step-position.js';
import { AlertSearchReplaced1764000000014 } from './1764000000014-alert-search-replaced.js';
import { NotificationIdempotencyKey1764000000015 } from './1764000000015-notification-idempotency-key.js';
import { AlertDispatchResolution1764000000016 } from './1764000000016-alert-dispatch-resolution.js';
import { AlertDispatchOutbox1764000000017 } from './1764000000017-alert-dispatch-outbox.js';
import { SessionRevocation1764000000018 } from './1764000000018-session-revocation.js';
import { StepTargetRosterMembers1764000000019 } from './1764000000019-step-target-roster-members.js';

export type MigrationClass = new () => MigrationInterface;

/**
 * Every schema migration, in order. Migrations are the only way the schema changes (the
 * DataSource never synchronizes); add new ones at the end, never edit a released one.
 */
export const MIGRATIONS: MigrationClass[] = [
  Identity1764000000000,
  Notifications1764000000001,
  Capabilities1764000000002,
  Alerts1764000000003,
  AlertSuppression1764000000004,
  NotificationEndpoints1764000000005,
  AlertRoutes1764000000006,
  Escalation1764000000007,
  AlertSearch1764000000008,
  AuditLog1764000000009,
  AlertInsights1764000000010,
  InsightsRollups1764000000011,
  EscalationPageIndexes1764000000012,
  EscalationStepPosition1764000000013,
  AlertSearchReplaced1764000000014,
  NotificationIdempotencyKey1764000000015,
  AlertDispatchResolution1764000000016,
  AlertDispatchOutbox1764000000017,
  SessionRevocation1764000000018,
  StepTargetRosterMembers1764000000019,
];
