import { parseCidr } from './ip-math.js';
import {
  badRequest,
  bodyOf,
  created,
  filtered,
  type NeutronObject,
  type NeutronRoute,
  type NeutronState,
  noContent,
  ok,
  refuse,
  text,
} from './neutron-state.js';

const GROUP_FIELDS = ['name', 'description', 'type', 'endpoints', 'tenant_id', 'project_id'];
/** A group's endpoints and type are fixed once made: Neutron changes its name only. */
const GROUP_UPDATE_FIELDS = ['name', 'description'];
const GROUP_TYPES = ['subnet', 'cidr', 'vlan', 'network', 'router'];

type FixedIp = { subnet_id: string };

const groupOf = (state: NeutronState, projectId: string, id: string) =>
  state.find(projectId, 'endpoint_groups', id, 'VPNEndpointGroup', 'Endpoint group');

/** Whether the router has an interface on the subnet. */
export function attachedToRouter(
  state: NeutronState,
  projectId: string,
  routerId: string,
  subnetId: string,
): boolean {
  return state
    .list(projectId, 'ports')
    .some(
      (p) =>
        p.device_id === routerId &&
        (p.fixed_ips as FixedIp[]).some((ip) => ip.subnet_id === subnetId),
    );
}

/**
 * A valid CIDR endpoint as Neutron's `validate_subnet` has it: an IPv4 one must be written as
 * its network (`10.0.0.0/24`, not `10.0.0.5/24`).
 */
const validCidr = (value: unknown) => {
  const cidr = typeof value === 'string' ? parseCidr(value) : null;
  return cidr !== null && (cidr.version === 6 || cidr.exact);
};

/**
 * VPN endpoint groups: the local subnets and the peer CIDRs of connections whose VPN service
 * has no subnet. Checked when made (the subnets of the project, valid CIDRs), never changed
 * but for their name; deleting one a connection uses is refused.
 */
export function endpointGroupRoutes(on: NeutronRoute, state: NeutronState): void {
  on('GET', /^\/v2\.0\/vpn\/endpoint-groups$/, (r) =>
    ok({ endpoint_groups: filtered(state.list(r.projectId, 'endpoint_groups'), r.query) }),
  );
  on('GET', /^\/v2\.0\/vpn\/endpoint-groups\/([^/]+)$/, (r, [id]) =>
    ok({ endpoint_group: groupOf(state, r.projectId, id) }),
  );
  on('POST', /^\/v2\.0\/vpn\/endpoint-groups$/, (r) => {
    const body = bodyOf(r, 'endpoint_group', GROUP_FIELDS);
    for (const required of ['type', 'endpoints']) {
      if (body[required] === undefined) {
        badRequest(`Failed to parse request. Required attribute '${required}' not specified`);
      }
    }
    if (!GROUP_TYPES.includes(text(body.type))) {
      badRequest(
        `Invalid input for type. Reason: ${text(body.type)} is not in ${JSON.stringify(GROUP_TYPES)}.`,
      );
    }
    if (!Array.isArray(body.endpoints)) {
      return badRequest(
        `Invalid input for endpoints. Reason: '${text(body.endpoints)}' is not a list.`,
      );
    }
    if (!body.endpoints.length) {
      badRequest(`No endpoints specified for endpoint group '${text(body.name ?? '')}'`);
    }
    for (const endpoint of body.endpoints as unknown[]) {
      if (body.type === 'cidr' && !validCidr(endpoint)) {
        refuse(
          400,
          'InvalidEndpointInEndpointGroup',
          `Endpoint '${text(endpoint)}' is invalid for group type 'cidr': Invalid CIDR`,
        );
      }
      // Neutron looks the subnet up as the caller: another project's is not found.
      if (body.type === 'subnet' && !state.own(r.projectId, 'subnets').has(text(endpoint))) {
        refuse(
          400,
          'NonExistingSubnetInEndpointGroup',
          `Subnet ${text(endpoint)} in endpoint group does not exist`,
        );
      }
    }
    const group = state.stamp(r.projectId, { name: '', ...body });
    return created({ endpoint_group: state.store(r.projectId, 'endpoint_groups', group) });
  });
  on('PUT', /^\/v2\.0\/vpn\/endpoint-groups\/([^/]+)$/, (r, [id]) => {
    const group = groupOf(state, r.projectId, id);
    const readOnly = Object.keys(
      (r.body as { endpoint_group?: object })?.endpoint_group ?? {},
    ).find((field) => !GROUP_UPDATE_FIELDS.includes(field));
    if (readOnly) badRequest(`Cannot update read-only attribute ${readOnly}`);
    return ok({
      endpoint_group: state.update(group, bodyOf(r, 'endpoint_group', GROUP_UPDATE_FIELDS)),
    });
  });
  on('DELETE', /^\/v2\.0\/vpn\/endpoint-groups\/([^/]+)$/, (r, [id]) => {
    groupOf(state, r.projectId, id);
    const inUse = state
      .list(r.projectId, 'ipsec_site_connections')
      .some((c) => c.local_ep_group_id === id || c.peer_ep_group_id === id);
    // Neutron's EndpointGroupInUse is a BadRequest (400), unlike the other VPN objects' 409.
    if (inUse)
      refuse(400, 'EndpointGroupInUse', `Endpoint group ${id} is in use and cannot be deleted`);
    state.own(r.projectId, 'endpoint_groups').delete(id);
    return noContent();
  });
}

const missingOrExtra = (names: string[]) => ({
  which: names.join(' and '),
  suffix: names.length > 1 ? 's' : '',
});

/**
 * What Neutron checks of a connection's local and peer sides, on create and on update (with
 * the connection's current values for what the update leaves out): a VPN service with a subnet
 * takes `peer_cidrs` and no endpoint groups; one without takes both groups and no
 * `peer_cidrs`. The local group holds subnets on the service's router, the peer group CIDRs,
 * all of one IP version.
 */
export function checkConnectionSides(
  state: NeutronState,
  projectId: string,
  service: NeutronObject,
  connection: Record<string, unknown>,
): void {
  const cidrs = (connection.peer_cidrs as unknown[] | undefined) ?? [];
  const localId = connection.local_ep_group_id;
  const peerId = connection.peer_ep_group_id;
  if (service.subnet_id) {
    if (!cidrs.length) {
      refuse(400, 'MissingPeerCidrs', 'Missing peer CIDRs for IPsec site-to-site connection');
    }
    const given = [...(localId ? ['local'] : []), ...(peerId ? ['peer'] : [])];
    if (given.length) {
      const { which, suffix } = missingOrExtra(given);
      refuse(
        400,
        'InvalidEndpointGroup',
        `Endpoint group${suffix} ${which} cannot be specified, when VPN Service has subnet specified`,
      );
    }
    return;
  }
  if (cidrs.length) {
    refuse(400, 'PeerCidrsInvalid', 'Peer CIDRs cannot be specified, when using endpoint groups');
  }
  const missing = [...(localId ? [] : ['local']), ...(peerId ? [] : ['peer'])];
  if (missing.length) {
    const { which, suffix } = missingOrExtra(missing);
    refuse(
      400,
      'MissingRequiredEndpointGroup',
      `Missing endpoint group${suffix} ${which} for IPSec site-to-site connection`,
    );
  }
  const local = groupOf(state, projectId, text(localId));
  const peer = groupOf(state, projectId, text(peerId));
  const wrongType = (group: NeutronObject, expected: string) =>
    group.type !== expected &&
    refuse(
      400,
      'WrongEndpointGroupType',
      `Endpoint group ${group.id} type is '${text(group.type)}' and should be '${expected}'`,
    );
  wrongType(local, 'subnet');
  const routerId = text(service.router_id);
  const localVersions = new Set<unknown>();
  for (const subnetId of local.endpoints as string[]) {
    const subnet = state.own(projectId, 'subnets').get(subnetId);
    if (!subnet) {
      refuse(
        400,
        'NonExistingSubnetInEndpointGroup',
        `Subnet ${subnetId} in endpoint group does not exist`,
      );
    }
    if (!attachedToRouter(state, projectId, routerId, subnetId)) {
      refuse(
        400,
        'SubnetIsNotConnectedToRouter',
        `Subnet ${subnetId} is not connected to Router ${routerId}`,
      );
    }
    localVersions.add(subnet!.ip_version);
  }
  wrongType(peer, 'cidr');
  const peerVersions = new Set((peer.endpoints as string[]).map((c) => parseCidr(c)?.version));
  for (const [group, versions] of [
    [local, localVersions],
    [peer, peerVersions],
  ] as const) {
    if (versions.size > 1) {
      refuse(
        400,
        'MixedIPVersionsForIPSecEndpoints',
        `Endpoints in group ${group.id} do not have the same IP version, as required for IPSec site-to-site connection`,
      );
    }
  }
  if ([...localVersions][0] !== [...peerVersions][0]) {
    refuse(
      400,
      'MixedIPVersionsForIPSecConnection',
      'IP versions are not compatible between peer and local endpoints',
    );
  }
}

/**
 * Refuses to detach subnets from a router while VPN uses them there: a VPN service on the
 * router with one of them as its subnet, or a connection of such a service with one of them
 * in its local endpoint group.
 */
export function refuseSubnetsInVpnUse(
  state: NeutronState,
  projectId: string,
  routerId: string,
  subnetIds: string[],
): void {
  const services = state.list(projectId, 'vpnservices').filter((s) => s.router_id === routerId);
  for (const subnetId of subnetIds) {
    const service = services.find((s) => s.subnet_id === subnetId);
    if (service) {
      refuse(
        409,
        'SubnetInUseByVPNService',
        `Subnet ${subnetId} is used by VPNService ${service.id}`,
      );
    }
    const connection = state
      .list(projectId, 'ipsec_site_connections')
      .find(
        (c) =>
          services.some((s) => s.id === c.vpnservice_id) &&
          c.local_ep_group_id &&
          (
            state.own(projectId, 'endpoint_groups').get(text(c.local_ep_group_id))?.endpoints as
              string[] | undefined
          )?.includes(subnetId),
      );
    if (connection) {
      refuse(
        409,
        'SubnetInUseByIPsecSiteConnection',
        `Subnet ${subnetId} is used by ipsec site connection ${connection.id}`,
      );
    }
  }
}

/** Refuses to delete a subnet an endpoint group of the project names. */
export function refuseSubnetInEndpointGroup(
  state: NeutronState,
  projectId: string,
  subnetId: string,
): void {
  const group = state
    .list(projectId, 'endpoint_groups')
    .find((g) => g.type === 'subnet' && (g.endpoints as string[]).includes(subnetId));
  if (group) {
    refuse(
      409,
      'SubnetInUseByEndpointGroup',
      `Subnet ${subnetId} is used by endpoint group ${group.id}`,
    );
  }
}
