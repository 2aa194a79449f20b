import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@platform/capabilities';
import { AckChannelsRepository } from './ack-channels.repository.js';
import { AckChannelsService } from './ack-channels.service.js';
import { AcknowledgementsModule } from './acknowledgements.module.js';
import { PhoneAckController } from './phone-ack.controller.js';
import { SignedAckController } from './signed-ack.controller.js';
import { TwilioWebhookVerifier } from './twilio-webhook.js';

/** Acknowledgement by signed e-mail link, phone call and SMS reply. */
@Module({
  imports: [AcknowledgementsModule, CapabilitiesModule],
  controllers: [SignedAckController, PhoneAckController],
  providers: [AckChannelsRepository, AckChannelsService, TwilioWebhookVerifier],
})
export class AckChannelsModule {}
