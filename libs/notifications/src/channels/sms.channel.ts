import { Injectable } from '@nestjs/common';
import { classifyPhoneFailure, PhoneProvider } from '../phone/phone-provider.js';
import type { DeliveryChannel, Receipt } from './channel.js';

export interface SmsMessage {
  to: string;
  body: string;
}

/** Text messages through the Twilio-shaped provider. */
@Injectable()
export class SmsChannel implements DeliveryChannel<SmsMessage> {
  readonly name = 'sms';

  constructor(private readonly provider: PhoneProvider) {}

  async send({ to, body }: SmsMessage): Promise<Receipt> {
    const receipt = await this.provider.sendSms(to, body);
    return { providerRef: receipt.sid || null, address: to };
  }

  classify = classifyPhoneFailure;
}
