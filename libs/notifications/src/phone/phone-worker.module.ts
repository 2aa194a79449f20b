import { Module } from '@nestjs/common';
import { RateLimitsModule } from '@platform/rate-limits';
import { PhoneDeliveriesRepository } from './phone-deliveries.repository.js';
import { PhoneProvider } from './phone-provider.js';
import { PhoneProcessor } from './phone.processor.js';

/** Worker side of phone delivery: the SMS and call processors and the Twilio-shaped provider. */
@Module({
  imports: [RateLimitsModule],
  providers: [PhoneProvider, PhoneDeliveriesRepository, PhoneProcessor],
  exports: [PhoneProvider],
})
export class PhoneWorkerModule {}
