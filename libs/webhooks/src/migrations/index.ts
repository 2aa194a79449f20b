import type { MigrationClass } from '@platform/database';
import { OrganizationWebhooks1764000000024 } from './1764000000024-organization-webhooks.js';
import { WebhookEventClaims1764000000025 } from './1764000000025-webhook-event-claims.js';
import { OrganizationWebhookDeliveryRecord1764000000036 } from './1764000000036-organization-webhook-delivery-record.js';

/**
 * The migrations of the webhooks library's tables, in order. Released ones are never edited;
 * add new ones at the end.
 */
export const WEBHOOKS_MIGRATIONS: MigrationClass[] = [
  OrganizationWebhooks1764000000024,
  WebhookEventClaims1764000000025,
  OrganizationWebhookDeliveryRecord1764000000036,
];
