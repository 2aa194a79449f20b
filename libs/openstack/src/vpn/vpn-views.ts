import type { NeutronObject } from '../network/neutron.js';

/**
 * A peer as clients see it: the IPsec site connection with its IKE and IPsec policies' ids,
 * and never its pre-shared key, which Neutron shows to anyone who may read the connection.
 */
export function peerView(connection: NeutronObject): NeutronObject {
  const { psk: _psk, ...visible } = connection;
  return { ...visible, gateway_id: connection.vpnservice_id };
}

/**
 * A gateway as clients see it: the VPN service, the router it terminates on, the address
 * peers connect to, and its peers.
 */
export function gatewayView(service: NeutronObject, connections: NeutronObject[]): NeutronObject {
  return {
    ...service,
    router_id: service.router_id,
    external_address: service.external_v4_ip ?? service.external_v6_ip ?? null,
    peers: connections.filter((c) => c.vpnservice_id === service.id).map(peerView),
  };
}
