import { Module } from '@nestjs/common';
import { RateLimitsModule } from '@platform/rate-limits';
import { AccountPhoneController } from './phone.controller.js';
import { PhoneDispatcher } from './phone-dispatcher.js';
import { PhoneVerificationRepository } from './phone-verification.repository.js';
import { PhoneVerificationService } from './phone-verification.service.js';

/**
 * Phone numbers of accounts (set and verified by SMS code) and PhoneDispatcher, which queues
 * SMS and calls for the worker (JobQueue comes from the global QueueModule).
 */
@Module({
  imports: [RateLimitsModule],
  controllers: [AccountPhoneController],
  providers: [PhoneDispatcher, PhoneVerificationRepository, PhoneVerificationService],
  exports: [PhoneDispatcher],
})
export class PhoneModule {}
