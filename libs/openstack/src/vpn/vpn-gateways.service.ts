import { Injectable } from '@nestjs/common';
import { CloudAudit, CloudErrorCode, CloudException } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import {
  IPSEC_SITE_CONNECTIONS,
  type Neutron,
  NETWORKS,
  type NeutronObject,
  ROUTERS,
  VPN_SERVICES,
} from '../network/neutron.js';
import type { CreateVpnGatewayBody } from './vpn.dto.js';
import { VpnPeersService } from './vpn-peers.service.js';
import { gatewayView } from './vpn-views.js';

/**
 * The organization's VPN gateways, in its own Keystone project: each a VPN service (without a
 * subnet) on a router of its own, whose gateway on an external network gives the address
 * peers connect to. The organization's project holds no other routers.
 */
@Injectable()
export class VpnGatewaysService {
  constructor(
    private readonly peers: VpnPeersService,
    private readonly audit: CloudAudit,
  ) {}

  async list(principal: Principal): Promise<NeutronObject[]> {
    const neutron = await this.peers.neutronOf(principal);
    const [services, connections] = await Promise.all([
      neutron.list(VPN_SERVICES),
      neutron.list(IPSEC_SITE_CONNECTIONS),
    ]);
    return services.map((service) => gatewayView(service, connections));
  }

  async show(principal: Principal, id: string): Promise<NeutronObject> {
    const neutron = await this.peers.neutronOf(principal);
    const service = await neutron.show(VPN_SERVICES, id);
    return gatewayView(service, await this.connectionsOf(neutron, id));
  }

  async create(principal: Principal, body: CreateVpnGatewayBody): Promise<NeutronObject> {
    const neutron = await this.peers.neutronOf(principal);
    const networkId = body.external_network_id ?? (await this.defaultExternalNetwork(neutron));
    const router = await neutron.create(ROUTERS, {
      name: `vpn-${body.name}`,
      description: 'The router of a VPN gateway, deleted with it',
      external_gateway_info: { network_id: networkId },
    });
    let service: NeutronObject;
    try {
      service = await neutron.create(VPN_SERVICES, {
        name: body.name,
        description: body.description ?? '',
        router_id: router.id,
      });
    } catch (error) {
      // A router made for a gateway that does not exist would belong to nothing. The failure
      // that stopped the gateway is the answer, whatever becomes of this cleanup.
      await neutron.delete(ROUTERS, router.id).catch(() => undefined);
      throw error;
    }
    await this.audit.record(
      principal,
      'vpn_gateways.create',
      { type: 'vpn_gateway', id: service.id },
      { name: body.name, router_id: router.id, external_network_id: networkId },
    );
    return gatewayView(service, []);
  }

  /** Its peers first (Neutron keeps a service with connections), then the service, then its router. */
  async delete(principal: Principal, id: string): Promise<void> {
    const neutron = await this.peers.neutronOf(principal);
    const service = await neutron.show(VPN_SERVICES, id);
    for (const connection of await this.connectionsOf(neutron, id)) {
      await this.peers.remove(principal, neutron, connection);
    }
    await neutron.delete(VPN_SERVICES, id);
    await neutron.delete(ROUTERS, String(service.router_id));
    await this.audit.record(
      principal,
      'vpn_gateways.delete',
      { type: 'vpn_gateway', id },
      { router_id: service.router_id },
    );
  }

  private connectionsOf(neutron: Neutron, gatewayId: string): Promise<NeutronObject[]> {
    return neutron.list(IPSEC_SITE_CONNECTIONS, { vpnservice_id: gatewayId });
  }

  /** The first external network the cloud offers; without one no gateway can have an address. */
  private async defaultExternalNetwork(neutron: Neutron): Promise<string> {
    const [network] = await neutron.list(NETWORKS, { 'router:external': 'true' });
    if (!network) {
      throw new CloudException(
        CloudErrorCode.ProviderNotConfigured,
        'The cloud offers no external network for VPN gateways',
        { retryable: false, details: { provider: 'openstack' } },
      );
    }
    return network.id;
  }
}
