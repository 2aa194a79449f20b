import type { NeutronObject } from '../network/neutron.js';

/**
 * A peer as clients see it: the IPsec site connection with its policies' and endpoint groups'
 * ids, the peer networks it was given (Neutron keeps them in the peer endpoint group and shows
 * the connection's own `peer_cidrs` empty), and never its pre-shared key, which Neutron shows
 * to anyone who may read the connection.
 */
export function peerView(connection: NeutronObject, groups: NeutronObject[]): NeutronObject {
  const { psk: _psk, ...visible } = connection;
  const peerGroup = groups.find((group) => group.id === connection.peer_ep_group_id);
  return {
    ...visible,
    gateway_id: connection.vpnservice_id,
    peer_cidrs: peerGroup?.endpoints ?? connection.peer_cidrs,
  };
}

/**
 * A gateway as clients see it: the VPN service, the router it terminates on, the address
 * peers connect to, its local side (the subnet on its router, null on a gateway made without
 * one) and its peers.
 */
export function gatewayView(
  service: NeutronObject,
  connections: NeutronObject[],
  groups: NeutronObject[],
  localSubnet: NeutronObject | undefined,
): NeutronObject {
  return {
    ...service,
    router_id: service.router_id,
    external_address: service.external_v4_ip ?? service.external_v6_ip ?? null,
    local_cidr: localSubnet?.cidr ?? null,
    local_subnet_id: localSubnet?.id ?? null,
    peers: connections
      .filter((c) => c.vpnservice_id === service.id)
      .map((c) => peerView(c, groups)),
  };
}
