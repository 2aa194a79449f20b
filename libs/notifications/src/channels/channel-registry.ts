import { Injectable, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { DeliveryChannel, DeliveryChannelName } from './channel.js';
import { EmailChannel } from './email.channel.js';
import { InAppChannel } from './in-app.channel.js';
import { PhoneChannel } from './phone.channel.js';
import { SmsChannel } from './sms.channel.js';
import { WebhookChannel } from './webhook.channel.js';

/**
 * The channel of each name. The compiler holds this to DELIVERY_CHANNELS: a name without a
 * channel, or a channel under no name, does not build. Adding a channel is its file, its name in
 * DELIVERY_CHANNELS and its line here.
 */
export const CHANNEL_TYPES = {
  in_app: InAppChannel,
  email: EmailChannel,
  phone: PhoneChannel,
  sms: SmsChannel,
  webhook: WebhookChannel,
} satisfies Record<DeliveryChannelName, Type<DeliveryChannel<never>>>;

export type ChannelOf<N extends DeliveryChannelName> = InstanceType<(typeof CHANNEL_TYPES)[N]>;

/** What a channel of the name sends. */
export type ChannelMessage<N extends DeliveryChannelName> =
  ChannelOf<N> extends DeliveryChannel<infer M> ? M : never;

/** Finds the channel of a name; every source sends through here. */
@Injectable()
export class ChannelRegistry {
  constructor(private readonly moduleRef: ModuleRef) {}

  get<N extends DeliveryChannelName>(name: N): ChannelOf<N> {
    return this.moduleRef.get<ChannelOf<N>>(CHANNEL_TYPES[name]);
  }
}
