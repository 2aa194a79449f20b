import { Module } from '@nestjs/common';
import { AlertingWorkerModule } from '@platform/alerting';
import { EscalationWorkerModule } from '@platform/escalation';
import { MailerModule } from '@platform/mail';
import { NotificationsWorkerModule } from '@platform/notifications';
import { ObjectStorageWorkerModule } from '@platform/object-storage';
import { OpenStackWorkerModule } from '@platform/openstack';
import { WebhooksWorkerModule } from '@platform/webhooks';

/**
 * Every module with `@OnJob` processors. Kept apart from WorkerModule so integration tests can
 * run the same processors inside an API test app.
 */
@Module({
  imports: [
    MailerModule,
    NotificationsWorkerModule,
    AlertingWorkerModule,
    EscalationWorkerModule,
    WebhooksWorkerModule,
    OpenStackWorkerModule,
    ObjectStorageWorkerModule,
  ],
})
export class WorkerProcessorsModule {}
