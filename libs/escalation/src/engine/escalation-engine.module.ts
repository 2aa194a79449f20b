import { Module } from '@nestjs/common';
import { EscalationEngine } from './escalation-engine.js';
import { EscalationJobs } from './escalation-jobs.js';

/** Runs escalation instances: opening, due steps, re-escalation, the sweeper. */
@Module({
  providers: [EscalationEngine, EscalationJobs],
  exports: [EscalationEngine, EscalationJobs],
})
export class EscalationEngineModule {}
