import { Module } from '@nestjs/common';
import { RostersModule } from '../rosters/rosters.module.js';
import { StepTargetResolver } from './step-targets.js';

/** Who an escalation step pages: used by the engine and by `resolved_targets`. */
@Module({
  imports: [RostersModule],
  providers: [StepTargetResolver],
  exports: [StepTargetResolver],
})
export class StepTargetsModule {}
