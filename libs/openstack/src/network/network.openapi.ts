import {
  BOOLEAN,
  INTEGER,
  NULLABLE_STRING,
  OBJECT,
  OBJECT_LIST,
  STRING,
  STRING_LIST,
} from '@platform/cloud-core';
import type { ErrorDoc } from '@platform/core';

/*
 * The fields of Neutron's objects clients rely on (the answers carry Neutron's others too),
 * and the 404s of the routes naming one.
 */

const NULLABLE_INTEGER = { type: 'integer', nullable: true } as const;
const NULLABLE_OBJECT = { type: 'object', nullable: true, additionalProperties: true } as const;

export const SECURITY_GROUP_RULE = {
  id: STRING,
  security_group_id: STRING,
  direction: { type: 'string', enum: ['ingress', 'egress'] },
  ethertype: { type: 'string', enum: ['IPv4', 'IPv6'] },
  protocol: { ...NULLABLE_STRING, description: 'null: any protocol' },
  port_range_min: NULLABLE_INTEGER,
  port_range_max: NULLABLE_INTEGER,
  remote_ip_prefix: NULLABLE_STRING,
  remote_group_id: NULLABLE_STRING,
  description: STRING,
};

export const SECURITY_GROUP = {
  id: STRING,
  name: STRING,
  description: STRING,
  project_id: STRING,
  security_group_rules: { type: 'array', items: OBJECT, description: 'the rules of the group' },
  stateful: BOOLEAN,
};

export const NETWORK = {
  id: STRING,
  name: STRING,
  description: STRING,
  status: STRING,
  admin_state_up: BOOLEAN,
  subnets: { ...STRING_LIST, description: 'ids of its subnets' },
  shared: BOOLEAN,
  'router:external': {
    ...BOOLEAN,
    description: 'an external network: for router gateways and floating IPs',
  },
  mtu: INTEGER,
  port_security_enabled: BOOLEAN,
  project_id: STRING,
};

export const SUBNET = {
  id: STRING,
  name: STRING,
  network_id: STRING,
  cidr: STRING,
  ip_version: { type: 'integer', enum: [4, 6] },
  gateway_ip: NULLABLE_STRING,
  enable_dhcp: BOOLEAN,
  allocation_pools: OBJECT_LIST,
  dns_nameservers: STRING_LIST,
  host_routes: OBJECT_LIST,
  project_id: STRING,
};

export const PORT = {
  id: STRING,
  name: STRING,
  network_id: STRING,
  mac_address: STRING,
  status: STRING,
  admin_state_up: BOOLEAN,
  device_id: { ...STRING, description: 'what the port is attached to (a server, a router)' },
  device_owner: { ...STRING, description: 'e.g. compute:nova, network:router_interface' },
  fixed_ips: { ...OBJECT_LIST, description: '`{subnet_id, ip_address}` each' },
  security_groups: STRING_LIST,
  project_id: STRING,
};

export const ROUTER = {
  id: STRING,
  name: STRING,
  description: STRING,
  status: STRING,
  admin_state_up: BOOLEAN,
  external_gateway_info: {
    ...NULLABLE_OBJECT,
    description: '`{network_id, enable_snat, external_fixed_ips}`, or null without a gateway',
  },
  routes: OBJECT_LIST,
  project_id: STRING,
};

export const ROUTER_INTERFACE = {
  id: { ...STRING, description: 'the router' },
  port_id: { ...STRING, description: 'the interface port (the id to remove it by)' },
  subnet_id: STRING,
  subnet_ids: STRING_LIST,
  network_id: STRING,
};

export const FLOATING_IP = {
  id: STRING,
  floating_ip_address: STRING,
  floating_network_id: STRING,
  port_id: NULLABLE_STRING,
  fixed_ip_address: NULLABLE_STRING,
  router_id: NULLABLE_STRING,
  status: STRING,
  description: STRING,
  project_id: STRING,
};

export const notFoundDoc = (what: string): ErrorDoc => [
  404,
  'not_found',
  `no ${what} of the project has this id`,
];
