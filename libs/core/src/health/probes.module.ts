import { type DynamicModule, type INestApplicationContext, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { APP_CONFIG } from '../config/app-config.js';
import { ErrorEnvelopeFilter } from '../errors/error-envelope.filter.js';
import { MetricsController } from '../metrics/metrics.controller.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { Dependencies } from './dependencies.js';
import { HealthController } from './health.controller.js';
import { HealthRegistry } from './health.registry.js';

/**
 * `/health/live`, `/health/ready` and `/metrics` for a process that serves nothing else,
 * answering exactly as the API's do (METRICS_TOKEN included). `serving(context)` builds them
 * over another application context's configuration, registry, metrics and dependencies: the
 * worker runs its jobs in a context of their own and serves only these routes, whatever
 * controllers its modules declare.
 */
@Module({
  controllers: [HealthController, MetricsController],
  providers: [{ provide: APP_FILTER, useClass: ErrorEnvelopeFilter }],
})
export class ProbesModule {
  static serving(context: INestApplicationContext): DynamicModule {
    const shared = [APP_CONFIG, HealthRegistry, MetricsService, Dependencies].map((token) => ({
      provide: token,
      useValue: context.get(token, { strict: false }),
    }));
    return {
      module: ProbesModule,
      providers: [...shared, { provide: APP_FILTER, useClass: ErrorEnvelopeFilter }],
    };
  }
}
