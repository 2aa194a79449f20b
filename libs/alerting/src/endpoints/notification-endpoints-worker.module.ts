import { Module } from '@nestjs/common';
import { ChannelsModule, DeliveriesRepository } from '@platform/notifications';
import { AlertsPruneProcessor } from './alerts-prune.processor.js';
import { EndpointFanout } from './endpoint-fanout.service.js';
import { EndpointsRepository } from './endpoints.repository.js';
import { RetentionRepository } from './retention.repository.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor.js';
import { webhookDeliveryPolicyProvider } from './webhook-policy.js';

/**
 * Worker side of notification endpoints: signed webhook deliveries and the daily retention
 * prune. Also exports the fan-out, so worker-side dispatch can start deliveries.
 */
@Module({
  imports: [ChannelsModule],
  providers: [
    webhookDeliveryPolicyProvider,
    EndpointsRepository,
    DeliveriesRepository,
    WebhookDeliveriesRepository,
    RetentionRepository,
    EndpointFanout,
    WebhookDeliveryProcessor,
    AlertsPruneProcessor,
  ],
  exports: [EndpointsRepository, EndpointFanout],
})
export class NotificationEndpointsWorkerModule {}
