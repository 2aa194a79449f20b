import { Module } from '@nestjs/common';
import { DeliveriesRepository } from '@platform/notifications';
import { CapabilitiesModule } from '@platform/capabilities';
import { OutboundModule } from '@platform/outbound';
import { EndpointFanout } from './endpoint-fanout.service.js';
import { EndpointsRepository } from './endpoints.repository.js';
import { NotificationEndpointsController } from './notification-endpoints.controller.js';
import { NotificationEndpointsService } from './notification-endpoints.service.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { webhookDeliveryPolicyProvider } from './webhook-policy.js';

/**
 * Notification endpoints and their signed webhook deliveries. Exports what routing needs:
 * `EndpointsRepository.findInProject` and `EndpointFanout.fanOut`.
 */
@Module({
  imports: [CapabilitiesModule, OutboundModule],
  controllers: [NotificationEndpointsController],
  providers: [
    webhookDeliveryPolicyProvider,
    EndpointsRepository,
    DeliveriesRepository,
    WebhookDeliveriesRepository,
    EndpointFanout,
    NotificationEndpointsService,
  ],
  exports: [EndpointsRepository, EndpointFanout],
})
export class NotificationEndpointsModule {}
