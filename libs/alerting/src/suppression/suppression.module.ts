import { Module } from '@nestjs/common';
import { SuppressionRepository } from './suppression.repository.js';
import { SuppressionService } from './suppression.service.js';

/**
 * `SuppressionService` alone, without controllers or guards, for the worker's dispatch; the
 * API gets it through `AlertsModule`, which re-exports this module.
 */
@Module({
  providers: [SuppressionRepository, SuppressionService],
  exports: [SuppressionRepository, SuppressionService],
})
export class SuppressionModule {}
