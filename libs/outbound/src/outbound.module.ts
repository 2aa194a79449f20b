import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@platform/core';
import { type HostResolver, OUTBOUND_RESOLVER, systemResolver } from './host-resolver.js';
import { OutboundHttp } from './outbound-http.js';

/**
 * Provides the OutboundHttp client, set from OUTBOUND_ALLOW_PRIVATE_NETWORKS, with the system
 * resolver under OUTBOUND_RESOLVER (which tests override to script DNS answers).
 */
@Module({
  providers: [
    { provide: OUTBOUND_RESOLVER, useValue: systemResolver },
    {
      provide: OutboundHttp,
      inject: [APP_CONFIG, OUTBOUND_RESOLVER],
      useFactory: (config: AppConfig, resolve: HostResolver) =>
        new OutboundHttp({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, resolve }),
    },
  ],
  exports: [OutboundHttp],
})
export class OutboundModule {}
