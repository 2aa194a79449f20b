import { Module } from '@nestjs/common';
import { ComputeModule } from './compute/compute.module.js';
import { DnsModule } from './dns/dns.module.js';
import { LoadBalancersModule } from './load-balancers/load-balancers.module.js';
import { NetworkModule } from './network/network.module.js';
import { OpenStackCoreModule } from './openstack-core.module.js';
import { VolumesModule } from './volumes/volumes.module.js';
import { VpnModule } from './vpn/vpn.module.js';

/**
 * Compute, network, volumes, load balancers, DNS and VPN over OpenStack
 * (4-cloud-resources.md): each platform project acts in its own Keystone project with a token
 * scoped to it, and every route answers the upstream object itself. One module per area.
 */
@Module({
  imports: [
    OpenStackCoreModule,
    ComputeModule,
    VolumesModule,
    NetworkModule,
    LoadBalancersModule,
    DnsModule,
    VpnModule,
  ],
  exports: [OpenStackCoreModule],
})
export class OpenStackModule {}
