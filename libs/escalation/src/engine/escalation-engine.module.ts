import { Module } from '@nestjs/common';
import { AlertEventsRepository } from '@platform/alerting';
import { NotifyModule } from '@platform/notifications';
import { StepTargetsModule } from '../chains/step-targets.module.js';
import { PagingModule } from '../paging/paging.module.js';
import { EscalationEngine } from './escalation-engine.js';
import { EscalationInstancesRepository } from './escalation-instances.repository.js';
import { EscalationJobs } from './escalation-jobs.js';
import { EscalationProcessor } from './escalation.processor.js';
import { EscalationSweeper } from './escalation-sweeper.js';

/** Runs escalation instances: opening, due steps, re-escalation, the sweeper. */
@Module({
  imports: [StepTargetsModule, NotifyModule, PagingModule],
  providers: [
    AlertEventsRepository,
    EscalationEngine,
    EscalationInstancesRepository,
    EscalationJobs,
    EscalationProcessor,
    EscalationSweeper,
  ],
  exports: [EscalationEngine, EscalationJobs],
})
export class EscalationEngineModule {}
