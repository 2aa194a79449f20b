import type { FakeRequest } from './fake-service.js';
import { contains, parseAddress, parseCidr } from './ip-math.js';
import {
  badRequest,
  bodyOf,
  created,
  filtered,
  NEUTRON_SERVICE_PROJECT,
  type NeutronObject,
  type NeutronRoute,
  type NeutronState,
  noContent,
  ok,
  refuse,
  text,
} from './neutron-state.js';
import { refuseSubnetsInVpnUse } from './neutron-vpn-endpoints.js';

const ROUTER_FIELDS = [
  'name',
  'description',
  'admin_state_up',
  'external_gateway_info',
  'tenant_id',
  'project_id',
  'availability_zone_hints',
  'distributed',
  'ha',
  'flavor_id',
];
const ROUTER_UPDATE_FIELDS = [
  'name',
  'description',
  'admin_state_up',
  'external_gateway_info',
  'routes',
];
const FLOATING_IP_FIELDS = [
  'floating_network_id',
  'port_id',
  'fixed_ip_address',
  'floating_ip_address',
  'subnet_id',
  'description',
  'tenant_id',
  'project_id',
  'dns_name',
  'dns_domain',
  'qos_policy_id',
];

type FixedIp = { subnet_id: string; ip_address: string };

const ROUTER_INTERFACE = 'network:router_interface';

/** Routers (gateway on an external network, interfaces, routes) and floating IPs. */
export function routerRoutes(on: NeutronRoute, state: NeutronState): void {
  const router = (r: FakeRequest, id: string) =>
    state.find(r.projectId, 'routers', id, 'Router', 'Router');
  const interfacesOf = (projectId: string, routerId: string) =>
    state
      .list(projectId, 'ports')
      .filter((p) => p.device_owner === ROUTER_INTERFACE && p.device_id === routerId);
  const floatingIpsVia = (projectId: string, routerId: string) =>
    state.list(projectId, 'floatingips').filter((f) => f.router_id === routerId);

  /** Sets (or with null clears) the router's gateway port on an external network. */
  const setGateway = (projectId: string, target: NeutronObject, info: unknown) => {
    const current = target.external_gateway_info as { network_id: string } | null;
    if (current && floatingIpsVia(projectId, target.id).length) {
      refuse(
        409,
        'RouterExternalGatewayInUseByFloatingIp',
        `Gateway cannot be updated for router ${target.id}, since a gateway to external network ${current.network_id} is required by one or more floating IPs.`,
      );
    }
    for (const port of state.list(NEUTRON_SERVICE_PROJECT, 'ports')) {
      if (port.device_id === target.id) state.deletePort(NEUTRON_SERVICE_PROJECT, port.id);
    }
    target.external_gateway_info = null;
    if (info === null || info === undefined) return;
    const gateway = info as Record<string, unknown>;
    if (gateway.enable_snat !== undefined || gateway.external_fixed_ips !== undefined) {
      refuse(
        403,
        'PolicyNotAuthorized',
        'rule:create_router:external_gateway_info is disallowed by policy',
      );
    }
    const network = state.visibleNetwork(projectId, text(gateway.network_id));
    if (network['router:external'] !== true) {
      badRequest(`Bad router request: Network ${network.id} is not an external network.`);
    }
    const port = state.createPort(NEUTRON_SERVICE_PROJECT, {
      network_id: network.id,
      subnets: (network.subnets as string[]).map((id) => ({ subnet: state.subnetAnywhere(id)! })),
      device_owner: 'network:router_gateway',
      device_id: target.id,
    });
    target.external_gateway_info = {
      network_id: network.id,
      enable_snat: true,
      external_fixed_ips: port.fixed_ips,
    };
  };

  on('GET', /^\/v2\.0\/routers$/, (r) =>
    ok({ routers: filtered(state.list(r.projectId, 'routers'), r.query) }),
  );
  on('GET', /^\/v2\.0\/routers\/([^/]+)$/, (r, [id]) => ok({ router: router(r, id) }));
  on('POST', /^\/v2\.0\/routers$/, (r) => {
    const { external_gateway_info, ...body } = bodyOf(r, 'router', ROUTER_FIELDS);
    const made = state.stamp(r.projectId, {
      name: '',
      admin_state_up: true,
      ...body,
      status: 'ACTIVE',
      external_gateway_info: null,
      routes: [],
      availability_zone_hints: [],
      availability_zones: ['nova'],
      flavor_id: null,
    });
    setGateway(r.projectId, made, external_gateway_info);
    return created({ router: state.store(r.projectId, 'routers', made) });
  });
  on('PUT', /^\/v2\.0\/routers\/([^/]+)$/, (r, [id]) => {
    const target = router(r, id);
    const { external_gateway_info, routes, ...changes } = bodyOf(r, 'router', ROUTER_UPDATE_FIELDS);
    if (routes !== undefined) checkRoutes(state, r.projectId, target.id, routes);
    if (external_gateway_info !== undefined) setGateway(r.projectId, target, external_gateway_info);
    return ok({
      router: state.update(target, { ...changes, ...(routes !== undefined ? { routes } : {}) }),
    });
  });
  on('DELETE', /^\/v2\.0\/routers\/([^/]+)$/, (r, [id]) => {
    const target = router(r, id);
    if (interfacesOf(r.projectId, id).length) {
      refuse(409, 'RouterInUse', `Router ${id} still has ports`);
    }
    const vpn = state.list(r.projectId, 'vpnservices').find((s) => s.router_id === id);
    if (vpn) refuse(409, 'RouterInUseByVPNService', `Router ${id} is used by VPNService ${vpn.id}`);
    setGateway(r.projectId, target, null);
    state.own(r.projectId, 'routers').delete(id);
    return noContent();
  });

  const interfaceInfo = (target: NeutronObject, port: NeutronObject) => {
    const subnetIds = (port.fixed_ips as FixedIp[]).map((ip) => ip.subnet_id);
    return ok({
      id: target.id,
      tenant_id: target.tenant_id,
      project_id: target.project_id,
      port_id: port.id,
      network_id: port.network_id,
      subnet_id: subnetIds[0],
      subnet_ids: subnetIds,
    });
  };
  on('PUT', /^\/v2\.0\/routers\/([^/]+)\/add_router_interface$/, (r, [id]) => {
    const target = router(r, id);
    const body = (r.body ?? {}) as { subnet_id?: string; port_id?: string };
    if (body.subnet_id && body.port_id) {
      badRequest('Bad router request: Cannot specify both subnet-id and port-id.');
    }
    if (body.port_id) {
      const port = state.find(r.projectId, 'ports', body.port_id, 'Port', 'Port');
      if (port.device_id) {
        refuse(
          409,
          'PortInUse',
          `Unable to complete operation on port ${port.id} for network ${text(port.network_id)}. Port already has an attached device ${text(port.device_id)}.`,
        );
      }
      if (!(port.fixed_ips as FixedIp[]).length) {
        badRequest('Bad router request: Router port must have at least one fixed IP.');
      }
      attachedSubnets(state, r.projectId, id, port.fixed_ips as FixedIp[]);
      state.update(port, { device_owner: ROUTER_INTERFACE, device_id: id, status: 'ACTIVE' });
      return interfaceInfo(target, port);
    }
    if (!body.subnet_id)
      badRequest('Bad router request: Either subnet_id or port_id must be specified.');
    const subnet = state.find(r.projectId, 'subnets', text(body.subnet_id), 'Subnet', 'Subnet');
    if (subnet.gateway_ip === null) {
      badRequest(`Bad router request: Subnet for router interface must have a gateway IP.`);
    }
    attachedSubnets(state, r.projectId, id, [{ subnet_id: subnet.id, ip_address: '' }]);
    const port = state.createPort(r.projectId, {
      network_id: text(subnet.network_id),
      subnets: [{ subnet, ip_address: text(subnet.gateway_ip) }],
      device_owner: ROUTER_INTERFACE,
      device_id: id,
    });
    return interfaceInfo(target, port);
  });
  on('PUT', /^\/v2\.0\/routers\/([^/]+)\/remove_router_interface$/, (r, [id]) => {
    const target = router(r, id);
    const body = (r.body ?? {}) as { subnet_id?: string; port_id?: string };
    const port = interfacesOf(r.projectId, id).find((p) =>
      body.port_id
        ? p.id === body.port_id
        : (p.fixed_ips as FixedIp[]).some((ip) => ip.subnet_id === body.subnet_id),
    );
    if (!port) {
      return refuse(
        404,
        'RouterInterfaceNotFound',
        `Router ${id} does not have an interface with id ${text(body.port_id ?? body.subnet_id)}`,
      );
    }
    const subnets = (port.fixed_ips as FixedIp[]).map((ip) => ip.subnet_id);
    refuseSubnetsInVpnUse(state, r.projectId, id, subnets);
    const behind = floatingIpsVia(r.projectId, id).find((f) =>
      state
        .list(r.projectId, 'ports')
        .some(
          (p) =>
            p.id === f.port_id &&
            (p.fixed_ips as FixedIp[]).some((ip) => subnets.includes(ip.subnet_id)),
        ),
    );
    if (behind) {
      refuse(
        409,
        'RouterInterfaceInUseByFloatingIP',
        `Router interface for subnet ${subnets[0]} on router ${id} cannot be deleted, as it is required by one or more floating IPs.`,
      );
    }
    const answer = interfaceInfo(target, port);
    state.deletePort(r.projectId, port.id);
    return answer;
  });

  on('GET', /^\/v2\.0\/floatingips$/, (r) =>
    ok({ floatingips: filtered(state.list(r.projectId, 'floatingips'), r.query) }),
  );
  on('GET', /^\/v2\.0\/floatingips\/([^/]+)$/, (r, [id]) =>
    ok({ floatingip: state.find(r.projectId, 'floatingips', id, 'FloatingIP', 'Floating IP') }),
  );
  on('POST', /^\/v2\.0\/floatingips$/, (r) => {
    const body = bodyOf(r, 'floatingip', FLOATING_IP_FIELDS);
    if (body.floating_ip_address !== undefined) {
      refuse(
        403,
        'PolicyNotAuthorized',
        'rule:create_floatingip:floating_ip_address is disallowed by policy',
      );
    }
    if (typeof body.floating_network_id !== 'string') {
      badRequest("Failed to parse request. Required attribute 'floating_network_id' not specified");
    }
    const network = state.visibleNetwork(r.projectId, text(body.floating_network_id));
    if (network['router:external'] !== true) {
      badRequest(`Bad floatingip request: Network ${network.id} is not a valid external network.`);
    }
    const subnetId = body.subnet_id ?? (network.subnets as string[])[0];
    const subnet = state.subnetAnywhere(text(subnetId));
    if (!subnet || subnet.network_id !== network.id) {
      return badRequest(
        `Bad floatingip request: Subnet ${text(subnetId)} is not on network ${network.id}.`,
      );
    }
    const association = body.port_id
      ? associate(state, r.projectId, network.id, text(body.port_id), body.fixed_ip_address)
      : { port_id: null, fixed_ip_address: null, router_id: null };
    const floatingIp = state.stamp(r.projectId, {
      description: body.description ?? '',
      floating_network_id: network.id,
      ...association,
      status: association.port_id ? 'ACTIVE' : 'DOWN',
      port_details: null,
      dns_domain: '',
      dns_name: '',
      qos_policy_id: null,
      port_forwardings: [],
    });
    const port = state.createPort(NEUTRON_SERVICE_PROJECT, {
      network_id: network.id,
      subnets: [{ subnet }],
      device_owner: 'network:floatingip',
      device_id: floatingIp.id,
    });
    floatingIp.floating_ip_address = (port.fixed_ips as FixedIp[])[0].ip_address;
    return created({ floatingip: state.store(r.projectId, 'floatingips', floatingIp) });
  });
  on('DELETE', /^\/v2\.0\/floatingips\/([^/]+)$/, (r, [id]) => {
    state.find(r.projectId, 'floatingips', id, 'FloatingIP', 'Floating IP');
    for (const port of state.list(NEUTRON_SERVICE_PROJECT, 'ports')) {
      if (port.device_id === id) state.deletePort(NEUTRON_SERVICE_PROJECT, port.id);
    }
    state.own(r.projectId, 'floatingips').delete(id);
    return noContent();
  });
}

/** Refuses an interface on a subnet the router already has, as Neutron does. */
function attachedSubnets(
  state: NeutronState,
  projectId: string,
  routerId: string,
  fixedIps: FixedIp[],
): void {
  const attached = state
    .list(projectId, 'ports')
    .filter((p) => p.device_owner === ROUTER_INTERFACE && p.device_id === routerId)
    .flatMap((p) => (p.fixed_ips as FixedIp[]).map((ip) => ip.subnet_id));
  const again = fixedIps.find((ip) => attached.includes(ip.subnet_id));
  if (again)
    badRequest(`Bad router request: Router already has a port on subnet ${again.subnet_id}.`);
}

/** Each route's next hop must be on a subnet of one of the router's interfaces. */
function checkRoutes(state: NeutronState, projectId: string, routerId: string, routes: unknown) {
  const subnets = state
    .list(projectId, 'ports')
    .filter((p) => p.device_owner === ROUTER_INTERFACE && p.device_id === routerId)
    .flatMap((p) =>
      (p.fixed_ips as FixedIp[]).map((ip) => state.own(projectId, 'subnets').get(ip.subnet_id)),
    )
    .filter((s): s is NeutronObject => s !== undefined);
  for (const route of Array.isArray(routes) ? (routes as Array<Record<string, unknown>>) : [null]) {
    const destination = parseCidr(text(route?.destination));
    const nexthop = parseAddress(text(route?.nexthop));
    if (!destination || !nexthop)
      badRequest(`Invalid format for routes: ${JSON.stringify(routes)}`);
    if (!subnets.some((s) => contains(parseCidr(text(s.cidr))!, nexthop!))) {
      badRequest(
        `Invalid format for routes: ${JSON.stringify(route)}, the nexthop is not connected with router`,
      );
    }
  }
}

/**
 * The port side of a new floating IP: a port of the project whose subnet a router of the
 * project joins to the floating IP's external network.
 */
function associate(
  state: NeutronState,
  projectId: string,
  externalNetworkId: string,
  portId: string,
  fixedIpAddress: unknown,
) {
  const port = state.find(projectId, 'ports', portId, 'Port', 'Port');
  const fixedIps = port.fixed_ips as FixedIp[];
  const fixed = fixedIpAddress
    ? fixedIps.find((ip) => ip.ip_address === fixedIpAddress)
    : fixedIps.find((ip) => parseAddress(ip.ip_address)?.version === 4);
  if (!fixed) {
    return badRequest(
      `Bad floatingip request: Port ${portId} does not have fixed ip ${text(fixedIpAddress ?? '')}.`,
    );
  }
  if (
    state
      .list(projectId, 'floatingips')
      .some((f) => f.port_id === portId && f.fixed_ip_address === fixed.ip_address)
  ) {
    refuse(
      409,
      'FloatingIPPortAlreadyAssociated',
      `Cannot associate floating IP with port ${portId} using fixed IP ${fixed.ip_address}, as that fixed IP already has a floating IP.`,
    );
  }
  const router = state
    .list(projectId, 'routers')
    .find(
      (candidate) =>
        (candidate.external_gateway_info as { network_id?: string } | null)?.network_id ===
          externalNetworkId &&
        state
          .list(projectId, 'ports')
          .some(
            (p) =>
              p.device_owner === ROUTER_INTERFACE &&
              p.device_id === candidate.id &&
              (p.fixed_ips as FixedIp[]).some((ip) => ip.subnet_id === fixed.subnet_id),
          ),
    );
  if (!router) {
    return refuse(
      404,
      'ExternalGatewayForFloatingIPNotFound',
      `External network ${externalNetworkId} is not reachable from subnet ${fixed.subnet_id}.  Therefore, cannot associate Port ${portId} with a Floating IP.`,
    );
  }
  return { port_id: portId, fixed_ip_address: fixed.ip_address, router_id: router.id };
}
