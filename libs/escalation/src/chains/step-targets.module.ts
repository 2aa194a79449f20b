import { Module } from '@nestjs/common';
import { OnCallModule } from '@platform/oncall';
import { StepTargetResolver } from './step-targets.js';

/** Who an escalation step pages: used by the engine and by `resolved_targets`. */
@Module({
  imports: [OnCallModule],
  providers: [StepTargetResolver],
  exports: [StepTargetResolver],
})
export class StepTargetsModule {}
