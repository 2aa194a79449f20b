import { Module } from '@nestjs/common';
import { AckChannelsModule } from './acknowledgement/ack-channels.module.js';
import { AcknowledgementsModule } from './acknowledgement/acknowledgements.module.js';
import { ChainsModule } from './chains/chains.module.js';
import { RostersModule } from './rosters/rosters.module.js';

/**
 * The escalation API: on-call rosters, escalation chains and steps, acknowledgement from every
 * channel. Every project route is behind the alerts capability.
 */
@Module({ imports: [RostersModule, ChainsModule, AcknowledgementsModule, AckChannelsModule] })
export class EscalationModule {}
