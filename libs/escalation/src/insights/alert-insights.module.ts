import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { InsightsController } from './insights.controller.js';
import { InsightsRepository } from './insights.repository.js';
import { InsightsService } from './insights.service.js';

/**
 * Alert insights. The API imports this module itself, ahead of the alerting module: routes
 * match in the order they are registered, and alerting's `alerts/:id` (registered with the
 * alerting module's own imports) would otherwise take `alerts/insights`.
 */
@Module({
  imports: [CapabilitiesModule],
  controllers: [InsightsController],
  providers: [InsightsRepository, InsightsService],
})
export class AlertInsightsModule {}
