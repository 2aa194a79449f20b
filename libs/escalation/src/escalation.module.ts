import { Module } from '@nestjs/common';
import { AckChannelsModule } from './acknowledgement/ack-channels.module.js';
import { AcknowledgementsModule } from './acknowledgement/acknowledgements.module.js';
import { ChainsModule } from './chains/chains.module.js';
import { PresetsModule } from './presets/presets.module.js';

/**
 * The escalation API: escalation chains and steps, acknowledgement from every channel, preset
 * seeding. Every project route is behind the alerts capability. On-call rosters are
 * `RostersModule` of `@platform/oncall`; insights are `AlertInsightsModule`, which the API
 * registers before alerting.
 */
@Module({
  imports: [ChainsModule, AcknowledgementsModule, AckChannelsModule, PresetsModule],
})
export class EscalationModule {}
