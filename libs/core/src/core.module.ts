import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { Clock, SystemClock } from './clock/clock.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { ErrorEnvelopeFilter } from './errors/error-envelope.filter.js';
import { HealthController } from './health/health.controller.js';
import { Dependencies } from './health/dependencies.js';
import { HealthRegistry } from './health/health.registry.js';
import { StartupTasks } from './health/start-up-tasks.js';
import { EnvelopeInterceptor } from './http/envelope.interceptor.js';
import { RequestInputInterceptor } from './http/request-body.js';
import { createValidationPipe } from './http/validation.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { MetricsService } from './metrics/metrics.service.js';
import { ApiContractGuard } from './versioning/api-contract.guard.js';
import {
  API_VERSION_POLICY,
  type ApiVersionPolicy,
  CURRENT_API_VERSIONS,
} from './versioning/api-versions.js';

/** Configuration, clock, metrics and health registry: what every deployable needs. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: Clock, useClass: SystemClock },
        MetricsService,
        HealthRegistry,
        Dependencies,
        StartupTasks,
      ],
      exports: [APP_CONFIG, Clock, MetricsService, HealthRegistry, Dependencies, StartupTasks],
    };
  }
}

/**
 * The HTTP contract, applied globally so no controller can forget it: version checks and
 * deprecation headers, the success envelope, the error envelope, validation; plus probes
 * and metrics.
 */
@Module({})
export class HttpContractModule {
  static forRoot(options: { apiVersions?: ApiVersionPolicy } = {}): DynamicModule {
    return {
      module: HttpContractModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: API_VERSION_POLICY, useValue: options.apiVersions ?? CURRENT_API_VERSIONS },
        { provide: APP_GUARD, useClass: ApiContractGuard },
        { provide: APP_INTERCEPTOR, useClass: RequestInputInterceptor },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
      exports: [API_VERSION_POLICY],
    };
  }
}
