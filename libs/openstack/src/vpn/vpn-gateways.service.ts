import { Injectable } from '@nestjs/common';
import { CloudAudit, CloudErrorCode, CloudException } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import {
  ENDPOINT_GROUPS,
  IPSEC_SITE_CONNECTIONS,
  type Neutron,
  NETWORKS,
  type NeutronObject,
  ROUTERS,
  SUBNETS,
  VPN_SERVICES,
} from '../network/neutron.js';
import { type CreateVpnGatewayBody, DEFAULT_LOCAL_CIDR } from './vpn.dto.js';
import { localSubnets } from './vpn-local-side.js';
import { VpnPeersService } from './vpn-peers.service.js';
import { gatewayView } from './vpn-views.js';

/** What a gateway is made of besides its VPN service. */
interface GatewayParts {
  service: NeutronObject;
  router: NeutronObject;
  subnet: NeutronObject;
}

/**
 * The organization's VPN gateways, in its own Keystone project: each a VPN service on a router
 * of its own, whose gateway on an external network gives the address peers connect to, and a
 * network and subnet of its own on that router, the local side its tunnels connect. The
 * service has no subnet: its connections name their local and peer sides in endpoint groups,
 * as Neutron wants of new services. The organization's project holds nothing else.
 */
@Injectable()
export class VpnGatewaysService {
  constructor(
    private readonly peers: VpnPeersService,
    private readonly audit: CloudAudit,
  ) {}

  async list(principal: Principal): Promise<NeutronObject[]> {
    const neutron = await this.peers.neutronOf(principal);
    const [services, connections, groups, sides] = await Promise.all([
      neutron.list(VPN_SERVICES),
      neutron.list(IPSEC_SITE_CONNECTIONS),
      neutron.list(ENDPOINT_GROUPS),
      localSubnets(neutron),
    ]);
    return services.map((service) =>
      gatewayView(service, connections, groups, sides.get(String(service.router_id))),
    );
  }

  async show(principal: Principal, id: string): Promise<NeutronObject> {
    const neutron = await this.peers.neutronOf(principal);
    const service = await neutron.show(VPN_SERVICES, id);
    const routerId = String(service.router_id);
    const [connections, groups, sides] = await Promise.all([
      this.connectionsOf(neutron, id),
      neutron.list(ENDPOINT_GROUPS),
      localSubnets(neutron, routerId),
    ]);
    return gatewayView(service, connections, groups, sides.get(routerId));
  }

  async create(principal: Principal, body: CreateVpnGatewayBody): Promise<NeutronObject> {
    const neutron = await this.peers.neutronOf(principal);
    const networkId = body.external_network_id ?? (await this.defaultExternalNetwork(neutron));
    const { service, router, subnet } = await this.build(neutron, body, networkId);
    await this.audit.record(
      principal,
      'vpn_gateways.create',
      { type: 'vpn_gateway', id: service.id },
      {
        name: body.name,
        router_id: router.id,
        external_network_id: networkId,
        local_subnet_id: subnet.id,
        local_cidr: subnet.cidr,
      },
    );
    return gatewayView(service, [], [], subnet);
  }

  /**
   * The network and subnet of the local side, the router on the external network, the
   * subnet's interface on it, then the service. A failed step undoes the earlier ones, last
   * first: parts of a gateway that does not exist would belong to nothing. The failure that
   * stopped the gateway is the answer, whatever becomes of this cleanup.
   */
  private async build(
    neutron: Neutron,
    body: CreateVpnGatewayBody,
    externalNetworkId: string,
  ): Promise<GatewayParts> {
    const name = `vpn-${body.name}`;
    const undo: Array<() => Promise<unknown>> = [];
    try {
      const network = await neutron.create(NETWORKS, {
        name,
        description: 'The local side of a VPN gateway, deleted with it',
      });
      undo.push(() => neutron.delete(NETWORKS, network.id));
      const subnet = await neutron.create(SUBNETS, {
        network_id: network.id,
        name,
        description: 'The local side of a VPN gateway, deleted with it',
        cidr: body.local_cidr ?? DEFAULT_LOCAL_CIDR,
        ip_version: 4,
      });
      undo.push(() => neutron.delete(SUBNETS, subnet.id));
      const router = await neutron.create(ROUTERS, {
        name,
        description: 'The router of a VPN gateway, deleted with it',
        external_gateway_info: { network_id: externalNetworkId },
      });
      undo.push(() => neutron.delete(ROUTERS, router.id));
      // Undone even when the answer is lost: an interface Neutron added after all would keep
      // the router; one it did not add answers 404, which the cleanup ignores.
      undo.push(() =>
        neutron.action(ROUTERS, router.id, 'remove_router_interface', { subnet_id: subnet.id }),
      );
      await neutron.action(ROUTERS, router.id, 'add_router_interface', { subnet_id: subnet.id });
      const service = await neutron.create(VPN_SERVICES, {
        name: body.name,
        description: body.description ?? '',
        router_id: router.id,
      });
      return { service, router, subnet };
    } catch (error) {
      for (const step of undo.reverse()) await step().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Its peers first (Neutron keeps a service with connections), the service, the local
   * subnet's interface (Neutron keeps a router with interfaces), the router, then the subnet
   * and its network.
   */
  async delete(principal: Principal, id: string): Promise<void> {
    const neutron = await this.peers.neutronOf(principal);
    const service = await neutron.show(VPN_SERVICES, id);
    const routerId = String(service.router_id);
    const subnet = (await localSubnets(neutron, routerId)).get(routerId);
    for (const connection of await this.connectionsOf(neutron, id)) {
      await this.peers.remove(principal, neutron, connection);
    }
    await neutron.delete(VPN_SERVICES, id);
    if (subnet) {
      await neutron.action(ROUTERS, routerId, 'remove_router_interface', { subnet_id: subnet.id });
    }
    await neutron.delete(ROUTERS, routerId);
    if (subnet) {
      await neutron.delete(SUBNETS, subnet.id);
      await neutron.delete(NETWORKS, String(subnet.network_id));
    }
    await this.audit.record(
      principal,
      'vpn_gateways.delete',
      { type: 'vpn_gateway', id },
      { router_id: routerId, local_subnet_id: subnet?.id ?? null },
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
