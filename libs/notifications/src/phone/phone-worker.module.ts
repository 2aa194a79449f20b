import { Module } from '@nestjs/common';
import { PhoneDeliveriesRepository } from './phone-deliveries.repository.js';
import { PhoneProvider } from './phone-provider.js';
import { PhoneProcessor } from './phone.processor.js';

/** Worker side of phone delivery: the SMS and call processors and the Twilio-shaped provider. */
@Module({
  providers: [PhoneProvider, PhoneDeliveriesRepository, PhoneProcessor],
  exports: [PhoneProvider],
})
export class PhoneWorkerModule {}
