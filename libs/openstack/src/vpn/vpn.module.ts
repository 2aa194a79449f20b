import { Module } from '@nestjs/common';
import { OpenStackCoreModule } from '../openstack-core.module.js';
import { VpnController } from './vpn.controller.js';
import { VpnGatewaysService } from './vpn-gateways.service.js';
import { VpnPeersService } from './vpn-peers.service.js';

/** Site-to-site VPN gateways and peers of an organization (Neutron VPNaaS). */
@Module({
  imports: [OpenStackCoreModule],
  controllers: [VpnController],
  providers: [VpnGatewaysService, VpnPeersService],
})
export class VpnModule {}
