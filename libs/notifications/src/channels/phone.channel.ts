import { Injectable } from '@nestjs/common';
import { classifyPhoneFailure, PhoneProvider } from '../phone/phone-provider.js';
import type { DeliveryChannel, Receipt } from './channel.js';

/** A call that reads `text` aloud, or runs `twiml` (a `<Gather>` whose answer comes back). */
export type CallMessage = { to: string; text: string } | { to: string; twiml: string };

/** Voice calls through the Twilio-shaped provider. */
@Injectable()
export class PhoneChannel implements DeliveryChannel<CallMessage> {
  readonly name = 'phone';

  constructor(private readonly provider: PhoneProvider) {}

  async send(message: CallMessage): Promise<Receipt> {
    const receipt =
      'twiml' in message
        ? await this.provider.callWithTwiml(message.to, message.twiml)
        : await this.provider.call(message.to, message.text);
    return { providerRef: receipt.sid || null, address: message.to };
  }

  classify = classifyPhoneFailure;
}
