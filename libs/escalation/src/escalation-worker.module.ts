import { Global, Module } from '@nestjs/common';
import { EscalationOpener } from '@platform/alerting';
import { EscalationEngine } from './engine/escalation-engine.js';
import { EscalationEngineModule } from './engine/escalation-engine.module.js';
import { PagingModule } from './paging/paging.module.js';

/**
 * Worker side of escalation: the engine (steps, re-escalation, the sweeper) and page delivery.
 * Global so alert dispatch finds the engine behind `EscalationOpener` without alerting
 * depending on escalation.
 */
@Global()
@Module({
  imports: [EscalationEngineModule, PagingModule],
  providers: [{ provide: EscalationOpener, useExisting: EscalationEngine }],
  exports: [EscalationOpener],
})
export class EscalationWorkerModule {}
