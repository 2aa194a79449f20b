import { applyDecorators } from '@nestjs/common';
import {
  BOOLEAN,
  INTEGER,
  NULLABLE_STRING,
  STRING,
  STRING_LIST,
  UPSTREAM_ERRORS,
} from '@platform/cloud-core';
import { ApiErrors, type ErrorDoc } from '@platform/core';
import {
  Authenticated,
  CSRF_ERROR,
  type Level,
  organizationNotFoundDoc,
  PERMISSION_ROUTE_ERRORS,
} from '@platform/identity';

export const PEER = {
  id: STRING,
  name: STRING,
  gateway_id: { ...STRING, description: 'the gateway (`vpnservice_id`)' },
  peer_address: STRING,
  peer_id: STRING,
  peer_cidrs: { ...STRING_LIST, description: "the peer's networks (its peer endpoint group's)" },
  mtu: INTEGER,
  admin_state_up: BOOLEAN,
  status: STRING,
  ikepolicy_id: { ...STRING, description: "the peer's own IKE policy" },
  ipsecpolicy_id: { ...STRING, description: "the peer's own IPsec policy" },
  local_ep_group_id: {
    ...STRING,
    description: "the peer's own endpoint group of the gateway's local subnet",
  },
  peer_ep_group_id: { ...STRING, description: "the peer's own endpoint group of its networks" },
  psk: { not: {}, description: 'never present: the pre-shared key is write-only' },
};
export const GATEWAY = {
  id: STRING,
  name: STRING,
  description: STRING,
  status: STRING,
  router_id: { ...STRING, description: 'the router made for the gateway' },
  external_address: { ...NULLABLE_STRING, description: 'the address peers connect to' },
  local_cidr: {
    ...NULLABLE_STRING,
    description: 'the network of its local side, which the tunnels connect to the peers',
  },
  local_subnet_id: {
    ...NULLABLE_STRING,
    description: 'the subnet made for its local side, on its router',
  },
  peers: {
    type: 'array',
    items: { type: 'object', additionalProperties: true, required: ['id'], properties: PEER },
  },
};

/**
 * An organization's VPN route: Axis A's `vpn` permission in the organization of the path
 * (no capability: VPN is no feature kind), acting in the organization's own Keystone project.
 */
export function VpnRoute(level: Level, ...errors: ErrorDoc[]) {
  return applyDecorators(
    Authenticated({ scope: 'organization', permission: `vpn:${level}` }),
    ApiErrors(
      ...PERMISSION_ROUTE_ERRORS,
      ...(level === 'read' ? [] : [CSRF_ERROR]),
      organizationNotFoundDoc(),
      ...UPSTREAM_ERRORS,
      ...errors,
    ),
  );
}

export const GATEWAY_404: ErrorDoc = [
  404,
  'not_found',
  'the organization has no VPN gateway of this id',
];
export const PEER_404: ErrorDoc = [404, 'not_found', 'the gateway has no peer of this id'];
