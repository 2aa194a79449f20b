import type { MigrationClass } from '@platform/database';
import { OrganizationWebhooks1764000000024 } from './1764000000024-organization-webhooks.js';

/**
 * The migrations of the webhooks library's tables, in order. Released ones are never edited;
 * add new ones at the end.
 */
export const WEBHOOKS_MIGRATIONS: MigrationClass[] = [OrganizationWebhooks1764000000024];
