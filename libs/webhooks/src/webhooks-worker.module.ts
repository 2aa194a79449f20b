import { Module } from '@nestjs/common';
import { ChannelsModule } from '@platform/notifications';
import { OrganizationWebhookDeliveryProcessor } from './delivery/delivery.processor.js';
import { OrganizationWebhooksPruneProcessor } from './delivery/prune.processor.js';
import { WebhookEventsModule } from './delivery/webhook-events.module.js';
import { ReceiptsRepository } from './receive/receipts.repository.js';

/**
 * Worker side of organization webhooks: the signed deliveries (through the notifications'
 * webhook channel) and the daily retention prune. Re-exports `WebhookEvents`, so worker-side
 * code can emit events too.
 */
@Module({
  imports: [WebhookEventsModule, ChannelsModule],
  providers: [
    ReceiptsRepository,
    OrganizationWebhookDeliveryProcessor,
    OrganizationWebhooksPruneProcessor,
  ],
  exports: [WebhookEventsModule],
})
export class WebhooksWorkerModule {}
