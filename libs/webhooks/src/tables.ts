import type { TableOwnership } from '@platform/database';

/** The tables only the webhooks library writes. */
export const WEBHOOKS_TABLES: TableOwnership = {
  library: 'webhooks',
  tables: [
    'organization_webhook',
    'organization_webhook_delivery',
    // Dropped for delivery_attempt (1764000000036); its released migrations still create it.
    'organization_webhook_delivery_attempt',
    'organization_webhook_receipt',
    'organization_webhook_event',
  ],
};
