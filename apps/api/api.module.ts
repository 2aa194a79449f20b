import { DynamicModule, Module } from '@nestjs/common';
import {
  type ApiVersionPolicy,
  type AppConfig,
  CoreModule,
  HttpContractModule,
} from '@platform/core';
import { AlertingModule } from '@platform/alerting';
import { AppsModule } from '@platform/apps';
import { AuditModule } from '@platform/audit';
import { CapabilitiesModule } from '@platform/capabilities';
import { KubernetesClustersModule } from '@platform/clusters';
import { DatabaseModule } from '@platform/database';
import { AlertInsightsModule, EscalationModule } from '@platform/escalation';
import { IdentityModule, PlatformAdminModule } from '@platform/identity';
import { NotificationsModule } from '@platform/notifications';
import { ObjectStorageModule } from '@platform/object-storage';
import { RostersModule } from '@platform/oncall';
import { OpenStackModule } from '@platform/openstack';
import { QueueModule } from '@platform/queue';
import { WebhooksModule } from '@platform/webhooks';

/** The REST API: composes the contract plumbing and the domain modules. */
@Module({})
export class ApiModule {
  static forRoot(
    config: AppConfig,
    options: { apiVersions?: ApiVersionPolicy } = {},
  ): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        CoreModule.forRoot(config),
        HttpContractModule.forRoot(options),
        DatabaseModule,
        QueueModule,
        AuditModule,
        IdentityModule,
        PlatformAdminModule,
        NotificationsModule,
        CapabilitiesModule,
        // Here, ahead of alerting: routes match in the order Nest meets their modules (these
        // imports before theirs), and alerting's `alerts/:id` would take `alerts/insights`.
        AlertInsightsModule,
        AlertingModule,
        RostersModule,
        EscalationModule,
        OpenStackModule,
        ObjectStorageModule,
        KubernetesClustersModule,
        AppsModule,
        WebhooksModule,
      ],
    };
  }
}
