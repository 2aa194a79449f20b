import { FakeService, type ProjectResources } from './fake-service.js';
import {
  contains,
  formatAddress,
  formatCidr,
  overlaps,
  parseAddress,
  parseCidr,
} from './ip-math.js';
import {
  badRequest,
  bodyOf,
  created,
  filtered,
  invalidInput,
  type NeutronObject,
  neutronRoutesOn,
  NeutronState,
  noContent,
  ok,
  refuse,
  text,
} from './neutron-state.js';
import { routerRoutes } from './neutron-routers.js';
import { ensureDefaultSecurityGroup, securityGroupRoutes } from './neutron-security-groups.js';
import { vpnRoutes } from './neutron-vpn.js';
import { refuseSubnetInEndpointGroup } from './neutron-vpn-endpoints.js';

export { FAKE_EXTERNAL_NETWORK, NEUTRON_SERVICE_PROJECT } from './neutron-state.js';

const NETWORK_FIELDS = [
  'name',
  'description',
  'admin_state_up',
  'mtu',
  'port_security_enabled',
  'shared',
  'tenant_id',
  'project_id',
  'availability_zone_hints',
  'dns_domain',
];
const SUBNET_FIELDS = [
  'network_id',
  'cidr',
  'ip_version',
  'name',
  'description',
  'gateway_ip',
  'enable_dhcp',
  'dns_nameservers',
  'allocation_pools',
  'host_routes',
  'ipv6_ra_mode',
  'ipv6_address_mode',
  'subnetpool_id',
  'tenant_id',
  'project_id',
];
/** The largest MTU of a tenant network (VXLAN over a 1500-byte underlay). */
const MAX_TENANT_MTU = 1450;

/**
 * Neutron (catalog type `network`, `/v2.0/...` below `/network`): networks, subnets, ports,
 * routers with their interfaces, floating IPs from the shared external network, security
 * groups with a default group per project, and VPNaaS. Each project sees its own objects (and
 * the external network); another project's ids are 404. Refusals carry Neutron's error body
 * `{"NeutronError": {type, message, detail}}` with its status: 400 for invalid input, 404,
 * 409 for objects in use.
 */
export function neutronService(resources: ProjectResources): FakeService {
  const state = new NeutronState(resources);
  const service = new FakeService('network', '/network');
  // Neutron makes a project's default security group on its first request.
  const on = neutronRoutesOn(service, (r) => ensureDefaultSecurityGroup(state, r.projectId));

  on('GET', /^\/v2\.0\/networks$/, (r) =>
    ok({ networks: filtered(state.visibleNetworks(r.projectId), r.query) }),
  );
  on('GET', /^\/v2\.0\/networks\/([^/]+)$/, (r, [id]) =>
    ok({ network: state.visibleNetwork(r.projectId, id) }),
  );
  on('POST', /^\/v2\.0\/networks$/, (r) => {
    const body = bodyOf(r, 'network', NETWORK_FIELDS);
    if (body.shared === true) {
      refuse(403, 'PolicyNotAuthorized', 'rule:create_network:shared is disallowed by policy');
    }
    if (body.mtu !== undefined && (typeof body.mtu !== 'number' || body.mtu > MAX_TENANT_MTU)) {
      invalidInput(`Requested MTU is too big, maximum is ${MAX_TENANT_MTU}`);
    }
    const network = state.stamp(r.projectId, {
      name: '',
      admin_state_up: true,
      mtu: MAX_TENANT_MTU,
      port_security_enabled: true,
      ...body,
      status: 'ACTIVE',
      subnets: [],
      shared: false,
      'router:external': false,
      availability_zone_hints: [],
      availability_zones: ['nova'],
      ipv4_address_scope: null,
      ipv6_address_scope: null,
    });
    return created({ network: state.store(r.projectId, 'networks', network) });
  });
  on('DELETE', /^\/v2\.0\/networks\/([^/]+)$/, (r, [id]) => {
    const network = state.visibleNetwork(r.projectId, id);
    if (!state.own(r.projectId, 'networks').has(id)) {
      refuse(403, 'PolicyNotAuthorized', 'rule:delete_network is disallowed by policy');
    }
    const inUse = (what: string) =>
      refuse(
        409,
        'NetworkInUse',
        `Unable to complete operation on network ${id}. There are one or more ${what} still in use on the network.`,
      );
    if (state.allPorts().some((p) => p.network_id === id)) inUse('ports');
    // Stricter than Neutron, which deletes a network's unused subnets along with it: here a
    // network is deleted only once its subnets are, so tests see each step refused in turn.
    if ((network.subnets as string[]).length) inUse('subnets');
    state.own(r.projectId, 'networks').delete(id);
    return noContent();
  });

  on('GET', /^\/v2\.0\/subnets$/, (r) =>
    ok({ subnets: filtered(state.list(r.projectId, 'subnets'), r.query) }),
  );
  on('GET', /^\/v2\.0\/subnets\/([^/]+)$/, (r, [id]) =>
    ok({ subnet: state.find(r.projectId, 'subnets', id, 'Subnet', 'Subnet') }),
  );
  on('POST', /^\/v2\.0\/subnets$/, (r) => {
    const subnet = createSubnet(state, r.projectId, bodyOf(r, 'subnet', SUBNET_FIELDS));
    return created({ subnet });
  });
  on('DELETE', /^\/v2\.0\/subnets\/([^/]+)$/, (r, [id]) => {
    const subnet = state.find(r.projectId, 'subnets', id, 'Subnet', 'Subnet');
    refuseSubnetInEndpointGroup(state, r.projectId, id);
    const allocated = state
      .allPorts()
      .some((p) => (p.fixed_ips as Array<{ subnet_id: string }>).some((ip) => ip.subnet_id === id));
    if (allocated) {
      refuse(
        409,
        'SubnetInUse',
        `Unable to complete operation on subnet ${id}: One or more ports have an IP allocation from this subnet.`,
      );
    }
    const network = state.own(r.projectId, 'networks').get(text(subnet.network_id));
    if (network) network.subnets = (network.subnets as string[]).filter((s) => s !== id);
    state.own(r.projectId, 'subnets').delete(id);
    return noContent();
  });

  on('GET', /^\/v2\.0\/ports$/, (r) =>
    ok({ ports: filtered(state.list(r.projectId, 'ports'), r.query) }),
  );
  on('GET', /^\/v2\.0\/ports\/([^/]+)$/, (r, [id]) =>
    ok({ port: state.find(r.projectId, 'ports', id, 'Port', 'Port') }),
  );

  routerRoutes(on, state);
  securityGroupRoutes(on, state);
  vpnRoutes(on, state);
  return service;
}

/** A subnet as Neutron makes it: checked against its network's other subnets. */
function createSubnet(
  state: NeutronState,
  projectId: string,
  body: Record<string, unknown>,
): NeutronObject {
  if (typeof body.network_id !== 'string') {
    badRequest("Failed to parse request. Required attribute 'network_id' not specified");
  }
  const network = state.visibleNetwork(projectId, text(body.network_id));
  if (!state.own(projectId, 'networks').has(network.id)) {
    refuse(403, 'PolicyNotAuthorized', 'rule:create_subnet is disallowed by policy');
  }
  const cidr = typeof body.cidr === 'string' ? parseCidr(body.cidr) : null;
  if (!cidr)
    return badRequest(
      `Invalid input for cidr. Reason: '${text(body.cidr)}' is not a valid IP subnet.`,
    );
  if (body.ip_version !== 4 && body.ip_version !== 6) {
    return badRequest(
      `Invalid input for ip_version. Reason: ${text(body.ip_version)} is not in [4, 6].`,
    );
  }
  if (cidr.version !== body.ip_version) {
    invalidInput(`Cidr ${text(body.cidr)} does not match the IP version ${body.ip_version}`);
  }
  if (!cidr.exact) {
    badRequest(
      `Invalid input for cidr. Reason: '${text(body.cidr)}' isn't a recommended CIDR, use '${formatCidr(cidr)}' instead.`,
    );
  }
  for (const other of state.list(projectId, 'subnets')) {
    if (other.network_id === network.id && overlaps(cidr, parseCidr(text(other.cidr))!)) {
      invalidInput(
        `Requested subnet with cidr: ${formatCidr(cidr)} for network: ${network.id} overlaps with another subnet`,
      );
    }
  }
  // The first address is the gateway unless the body names another, or none (null).
  let gateway: string | null = formatAddress({ version: cidr.version, value: cidr.network + 1n });
  if (body.gateway_ip === null) gateway = null;
  else if (body.gateway_ip !== undefined) {
    const address = parseAddress(text(body.gateway_ip));
    if (!address || !contains(cidr, address)) {
      invalidInput(`Gateway ip ${text(body.gateway_ip)} conflicts with the subnet`);
    }
    gateway = text(body.gateway_ip);
  }
  const subnet = state.stamp(projectId, {
    name: '',
    enable_dhcp: true,
    dns_nameservers: [],
    host_routes: [],
    ipv6_ra_mode: null,
    ipv6_address_mode: null,
    subnetpool_id: null,
    service_types: [],
    allocation_pools: NeutronState.defaultPool(formatCidr(cidr), gateway),
    ...body,
    cidr: formatCidr(cidr),
    gateway_ip: gateway,
  });
  (network.subnets as string[]).push(subnet.id);
  return state.store(projectId, 'subnets', subnet);
}

/**
 * A port on a network of the project (with an address on its first subnet), as a server's
 * interface would be: for tests, since the platform itself never creates ports.
 */
export function seedNeutronPort(
  resources: ProjectResources,
  projectId: string,
  fields: { network_id: string; security_groups?: string[]; device_id?: string },
): NeutronObject {
  const state = new NeutronState(resources);
  ensureDefaultSecurityGroup(state, projectId);
  const network = state.visibleNetwork(projectId, fields.network_id);
  const subnet = state.own(projectId, 'subnets').get((network.subnets as string[])[0] ?? '');
  return state.createPort(projectId, {
    network_id: network.id,
    subnets: subnet ? [{ subnet }] : [],
    security_groups: fields.security_groups,
    device_id: fields.device_id,
    device_owner: fields.device_id ? 'compute:nova' : undefined,
  });
}
