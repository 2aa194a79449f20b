import { Global, Module } from '@nestjs/common';
import { EscalationOpener, RosterOnCall } from '@platform/alerting';
import { EscalationEngine } from './engine/escalation-engine.js';
import { EscalationEngineModule } from './engine/escalation-engine.module.js';
import { PagingModule } from './paging/paging.module.js';
import { OnCallResolver } from './rosters/on-call-resolver.js';
import { OnCallModule } from './rosters/on-call.module.js';

/**
 * Worker side of escalation: the engine (steps, re-escalation, the sweeper) and page delivery.
 * Global so alert dispatch finds the engine behind `EscalationOpener` and rosters behind
 * `RosterOnCall` without alerting depending on escalation.
 */
@Global()
@Module({
  imports: [EscalationEngineModule, PagingModule, OnCallModule],
  providers: [
    { provide: EscalationOpener, useExisting: EscalationEngine },
    { provide: RosterOnCall, useExisting: OnCallResolver },
  ],
  exports: [EscalationOpener, RosterOnCall],
})
export class EscalationWorkerModule {}
