import { Module } from '@nestjs/common';
import { DeliveriesRepository } from '@platform/notifications';
import { OrganizationWebhookDeliveriesRepository } from './deliveries.repository.js';
import {
  ORGANIZATION_WEBHOOK_POLICY,
  organizationWebhookPolicyProvider,
} from './delivery-policy.js';
import { WebhookEvents } from './webhook-events.service.js';

/**
 * `WebhookEvents`, for any library that tells organizations about their apps, clusters and
 * servers; works in the API and in the worker (it only writes rows and queues jobs).
 */
@Module({
  providers: [
    organizationWebhookPolicyProvider,
    DeliveriesRepository,
    OrganizationWebhookDeliveriesRepository,
    WebhookEvents,
  ],
  exports: [
    ORGANIZATION_WEBHOOK_POLICY,
    DeliveriesRepository,
    OrganizationWebhookDeliveriesRepository,
    WebhookEvents,
  ],
})
export class WebhookEventsModule {}
