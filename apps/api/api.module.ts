import { DynamicModule, Module } from '@nestjs/common';
import {
  type ApiVersionPolicy,
  type AppConfig,
  CoreModule,
  HttpContractModule,
} from '@platform/core';
import { AlertingModule } from '@platform/alerting';
import { CapabilitiesModule } from '@platform/capabilities';
import { DatabaseModule } from '@platform/database';
import { EscalationModule } from '@platform/escalation';
import { IdentityModule } from '@platform/identity';
import { NotificationsModule } from '@platform/notifications';
import { QueueModule } from '@platform/queue';

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
        IdentityModule,
        NotificationsModule,
        CapabilitiesModule,
        AlertingModule,
        EscalationModule,
      ],
    };
  }
}
