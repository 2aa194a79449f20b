import { Module } from '@nestjs/common';
import { AuditModule } from '@platform/audit';
import { CloudCoreModule } from '@platform/cloud-core';
import { OutboundModule } from '@platform/outbound';
import { WebhookEventsModule } from './delivery/webhook-events.module.js';
import { WebhookHistoryService } from './manage/webhook-history.service.js';
import { WebhooksController } from './manage/webhooks.controller.js';
import { WebhooksRepository } from './manage/webhooks.repository.js';
import { WebhooksService } from './manage/webhooks.service.js';
import { appsClusterProvider, ContainerApps } from './receive/container-apps.js';
import { ReceiptsRepository } from './receive/receipts.repository.js';
import { WebhookReceiveController } from './receive/receive.controller.js';
import { WebhookReceiveService } from './receive/receive.service.js';

/**
 * Organization webhooks in the API: their CRUD and history, the public receive that pins
 * container apps to pushed digests in the apps cluster, and `WebhookEvents` (re-exported) for
 * the libraries that emit app and cluster events.
 */
@Module({
  imports: [WebhookEventsModule, OutboundModule, AuditModule, CloudCoreModule],
  controllers: [WebhooksController, WebhookReceiveController],
  providers: [
    WebhooksRepository,
    ReceiptsRepository,
    WebhooksService,
    WebhookHistoryService,
    appsClusterProvider,
    ContainerApps,
    WebhookReceiveService,
  ],
  exports: [WebhookEventsModule],
})
export class WebhooksModule {}
