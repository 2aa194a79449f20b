import { Module } from '@nestjs/common';
import { IdentityModule } from '@platform/identity';
import { RateLimitsModule } from '@platform/rate-limits';
import { AccountPhoneController } from './phone.controller.js';
import { ChannelsModule } from '../channels/channels.module.js';
import { PhoneVerificationRepository } from './phone-verification.repository.js';
import { PhoneVerificationService } from './phone-verification.service.js';

/** Phone numbers of accounts, set and verified by an SMS code sent through the channels. */
@Module({
  imports: [IdentityModule, RateLimitsModule, ChannelsModule],
  controllers: [AccountPhoneController],
  providers: [PhoneVerificationRepository, PhoneVerificationService],
})
export class PhoneModule {}
