import { Global, Module } from '@nestjs/common';
import { EscalationOpener, EscalationPagesPruner } from '@platform/alerting';
import { EscalationEngine } from './engine/escalation-engine.js';
import { EscalationEngineModule } from './engine/escalation-engine.module.js';
import { PageRetentionRepository } from './engine/page-retention.repository.js';
import { PagingModule } from './paging/paging.module.js';

/**
 * Worker side of escalation: the engine (steps, re-escalation, the sweeper) and page delivery.
 * Global so alert dispatch finds the engine behind `EscalationOpener`, and the retention sweep
 * the pages behind `EscalationPagesPruner`, without alerting depending on escalation.
 */
@Global()
@Module({
  imports: [EscalationEngineModule, PagingModule],
  providers: [
    { provide: EscalationOpener, useExisting: EscalationEngine },
    { provide: EscalationPagesPruner, useClass: PageRetentionRepository },
  ],
  exports: [EscalationOpener, EscalationPagesPruner],
})
export class EscalationWorkerModule {}
