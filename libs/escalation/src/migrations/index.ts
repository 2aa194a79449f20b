import type { MigrationClass } from '@platform/database';
import { Escalation1764000000007 } from './1764000000007-escalation.js';
import { AlertInsights1764000000010 } from './1764000000010-alert-insights.js';
import { InsightsRollups1764000000011 } from './1764000000011-insights-rollups.js';
import { EscalationPageIndexes1764000000012 } from './1764000000012-escalation-page-indexes.js';
import { EscalationStepPosition1764000000013 } from './1764000000013-escalation-step-position.js';
import { StepTargetRosterMembers1764000000019 } from './1764000000019-step-target-roster-members.js';
import { EscalationPageClaims1764000000020 } from './1764000000020-escalation-page-claims.js';
import { PageDeliveryRecord1764000000037 } from './1764000000037-page-delivery-record.js';

/**
 * The migrations of escalation's tables, in order. Released ones are never edited (names and
 * timestamps are recorded in deployed databases); add new ones at the end.
 */
export const ESCALATION_MIGRATIONS: MigrationClass[] = [
  Escalation1764000000007,
  AlertInsights1764000000010,
  InsightsRollups1764000000011,
  EscalationPageIndexes1764000000012,
  EscalationStepPosition1764000000013,
  StepTargetRosterMembers1764000000019,
  EscalationPageClaims1764000000020,
  PageDeliveryRecord1764000000037,
];
