import { parseAddress, parseCidr } from './ip-math.js';
import {
  badRequest,
  bodyOf,
  created,
  filtered,
  type NeutronRoute,
  type NeutronState,
  noContent,
  ok,
  refuse,
  text,
} from './neutron-state.js';
import {
  attachedToRouter,
  checkConnectionSides,
  endpointGroupRoutes,
} from './neutron-vpn-endpoints.js';

const OWNER = ['tenant_id', 'project_id'];
const SERVICE_FIELDS = [
  'name',
  'description',
  'router_id',
  'subnet_id',
  'admin_state_up',
  'flavor_id',
  ...OWNER,
];
const POLICY_COMMON = [
  'name',
  'description',
  'auth_algorithm',
  'encryption_algorithm',
  'pfs',
  'lifetime',
];
const IKE_FIELDS = [...POLICY_COMMON, 'phase1_negotiation_mode', 'ike_version', ...OWNER];
const IPSEC_FIELDS = [...POLICY_COMMON, 'transform_protocol', 'encapsulation_mode', ...OWNER];
const CONNECTION_UPDATE_FIELDS = [
  'name',
  'description',
  'peer_address',
  'peer_id',
  'local_id',
  'peer_cidrs',
  'psk',
  'mtu',
  'initiator',
  'admin_state_up',
  'dpd',
  'local_ep_group_id',
  'peer_ep_group_id',
];
const CONNECTION_FIELDS = [
  ...CONNECTION_UPDATE_FIELDS,
  'vpnservice_id',
  'ikepolicy_id',
  'ipsecpolicy_id',
  ...OWNER,
];

const AUTH = ['sha1', 'sha256', 'sha384', 'sha512', 'aes-xcbc', 'aes-cmac'];
const ENCRYPTION = [
  '3des',
  'aes-128',
  'aes-192',
  'aes-256',
  'aes-128-ctr',
  'aes-192-ctr',
  'aes-256-ctr',
  'aes-128-gcm-16',
  'aes-256-gcm-16',
];
const PFS = ['group2', 'group5', 'group14', 'group15', 'group16', 'group19', 'group20', 'group21'];

/** Neutron's `Invalid input for <field>` unless the value is one of `allowed`. */
function oneOf(body: Record<string, unknown>, field: string, allowed: readonly string[]) {
  const value = body[field];
  if (value !== undefined && !allowed.includes(text(value))) {
    badRequest(
      `Invalid input for ${field}. Reason: ${text(value)} is not in ${JSON.stringify(allowed)}.`,
    );
  }
}

function checkLifetime(body: Record<string, unknown>) {
  const lifetime = body.lifetime as { units?: string; value?: number } | undefined;
  if (lifetime === undefined) return;
  if (lifetime.units !== undefined && lifetime.units !== 'seconds') {
    badRequest(
      `Invalid input for lifetime. Reason: Unit ${text(lifetime.units)} is not supported.`,
    );
  }
  if (lifetime.value !== undefined && (typeof lifetime.value !== 'number' || lifetime.value < 60)) {
    badRequest('Invalid input for lifetime. Reason: lifetime value must be >= 60.');
  }
}

/**
 * VPNaaS: VPN services on a router with an external gateway, IKE and IPsec policies, endpoint
 * groups, and IPsec site connections tying them to a peer. A connection's local and peer sides
 * are checked as Neutron checks them (see `checkConnectionSides`). Objects in use answer 409 on
 * delete (endpoint groups 400, as Neutron does); connections show their pre-shared key, as
 * Neutron does.
 */
export function vpnRoutes(on: NeutronRoute, state: NeutronState): void {
  const vpnservice = (projectId: string, id: string) =>
    state.find(projectId, 'vpnservices', id, 'VPNService', 'VPNService');
  const connectionsUsing = (projectId: string, field: string, id: string) =>
    state.list(projectId, 'ipsec_site_connections').filter((c) => c[field] === id);

  on('GET', /^\/v2\.0\/vpn\/vpnservices$/, (r) =>
    ok({ vpnservices: filtered(state.list(r.projectId, 'vpnservices'), r.query) }),
  );
  on('GET', /^\/v2\.0\/vpn\/vpnservices\/([^/]+)$/, (r, [id]) =>
    ok({ vpnservice: vpnservice(r.projectId, id) }),
  );
  on('POST', /^\/v2\.0\/vpn\/vpnservices$/, (r) => {
    const body = bodyOf(r, 'vpnservice', SERVICE_FIELDS);
    const router = state.find(r.projectId, 'routers', text(body.router_id), 'Router', 'Router');
    const gateway = router.external_gateway_info as {
      external_fixed_ips: Array<{ ip_address: string }>;
    } | null;
    if (!gateway) {
      refuse(400, 'RouterIsNotExternal', `Router ${router.id} has no external network gateway set`);
    }
    if (body.subnet_id) {
      const subnetId = text(body.subnet_id);
      state.find(r.projectId, 'subnets', subnetId, 'Subnet', 'Subnet');
      if (!attachedToRouter(state, r.projectId, router.id, subnetId)) {
        refuse(
          400,
          'SubnetIsNotConnectedToRouter',
          `Subnet ${subnetId} is not connected to Router ${router.id}`,
        );
      }
    }
    const addressOf = (version: number) =>
      gateway!.external_fixed_ips.find((ip) => parseAddress(ip.ip_address)?.version === version)
        ?.ip_address ?? null;
    const service = state.stamp(r.projectId, {
      name: '',
      subnet_id: null,
      admin_state_up: true,
      flavor_id: null,
      ...body,
      status: 'ACTIVE',
      external_v4_ip: addressOf(4),
      external_v6_ip: addressOf(6),
    });
    return created({ vpnservice: state.store(r.projectId, 'vpnservices', service) });
  });
  on('DELETE', /^\/v2\.0\/vpn\/vpnservices\/([^/]+)$/, (r, [id]) => {
    vpnservice(r.projectId, id);
    if (connectionsUsing(r.projectId, 'vpnservice_id', id).length) {
      refuse(409, 'VPNServiceInUse', `VPNService ${id} is still in use`);
    }
    state.own(r.projectId, 'vpnservices').delete(id);
    return noContent();
  });

  const policyRoutes = (
    path: string,
    key: string,
    collection: string,
    type: string,
    fields: string[],
    defaults: Record<string, unknown>,
    check: (body: Record<string, unknown>) => void,
  ) => {
    const find = (projectId: string, id: string) =>
      state.find(projectId, collection, id, type, type);
    on('GET', new RegExp(`^/v2\\.0/vpn/${path}$`), (r) =>
      ok({ [collection]: filtered(state.list(r.projectId, collection), r.query) }),
    );
    on('GET', new RegExp(`^/v2\\.0/vpn/${path}/([^/]+)$`), (r, [id]) =>
      ok({ [key]: find(r.projectId, id) }),
    );
    on('POST', new RegExp(`^/v2\\.0/vpn/${path}$`), (r) => {
      const body = bodyOf(r, key, fields);
      oneOf(body, 'auth_algorithm', AUTH);
      oneOf(body, 'encryption_algorithm', ENCRYPTION);
      oneOf(body, 'pfs', PFS);
      checkLifetime(body);
      check(body);
      const lifetime = { units: 'seconds', value: 3600, ...(body.lifetime as object) };
      const policy = state.stamp(r.projectId, {
        name: '',
        auth_algorithm: 'sha1',
        encryption_algorithm: 'aes-128',
        pfs: 'group5',
        ...defaults,
        ...body,
        lifetime,
      });
      return created({ [key]: state.store(r.projectId, collection, policy) });
    });
    on('DELETE', new RegExp(`^/v2\\.0/vpn/${path}/([^/]+)$`), (r, [id]) => {
      find(r.projectId, id);
      if (connectionsUsing(r.projectId, `${key}_id`, id).length) {
        refuse(409, `${type}InUse`, `${type} ${id} in use.`);
      }
      state.own(r.projectId, collection).delete(id);
      return noContent();
    });
  };
  policyRoutes(
    'ikepolicies',
    'ikepolicy',
    'ikepolicies',
    'IKEPolicy',
    IKE_FIELDS,
    { phase1_negotiation_mode: 'main', ike_version: 'v1' },
    (body) => {
      oneOf(body, 'phase1_negotiation_mode', ['main', 'aggressive']);
      oneOf(body, 'ike_version', ['v1', 'v2']);
    },
  );
  policyRoutes(
    'ipsecpolicies',
    'ipsecpolicy',
    'ipsecpolicies',
    'IPsecPolicy',
    IPSEC_FIELDS,
    { transform_protocol: 'esp', encapsulation_mode: 'tunnel' },
    (body) => {
      oneOf(body, 'transform_protocol', ['esp', 'ah', 'ah-esp']);
      oneOf(body, 'encapsulation_mode', ['tunnel', 'transport']);
    },
  );

  endpointGroupRoutes(on, state);

  const connection = (projectId: string, id: string) =>
    state.find(
      projectId,
      'ipsec_site_connections',
      id,
      'IPsecSiteConnection',
      'ipsec_site_connection',
    );
  on('GET', /^\/v2\.0\/vpn\/ipsec-site-connections$/, (r) =>
    ok({
      ipsec_site_connections: filtered(state.list(r.projectId, 'ipsec_site_connections'), r.query),
    }),
  );
  on('GET', /^\/v2\.0\/vpn\/ipsec-site-connections\/([^/]+)$/, (r, [id]) =>
    ok({ ipsec_site_connection: connection(r.projectId, id) }),
  );
  on('POST', /^\/v2\.0\/vpn\/ipsec-site-connections$/, (r) => {
    const body = bodyOf(r, 'ipsec_site_connection', CONNECTION_FIELDS);
    for (const required of [
      'vpnservice_id',
      'ikepolicy_id',
      'ipsecpolicy_id',
      'peer_address',
      'peer_id',
      'psk',
    ]) {
      if (typeof body[required] !== 'string' || body[required] === '') {
        badRequest(`Failed to parse request. Required attribute '${required}' not specified`);
      }
    }
    const service = vpnservice(r.projectId, text(body.vpnservice_id));
    state.find(r.projectId, 'ikepolicies', text(body.ikepolicy_id), 'IKEPolicy', 'IKEPolicy');
    state.find(
      r.projectId,
      'ipsecpolicies',
      text(body.ipsecpolicy_id),
      'IPsecPolicy',
      'IPsecPolicy',
    );
    checkConnection(body);
    checkConnectionSides(state, r.projectId, service, body);
    const made = state.stamp(r.projectId, {
      name: '',
      local_id: '',
      peer_cidrs: [],
      mtu: 1500,
      initiator: 'bi-directional',
      admin_state_up: true,
      local_ep_group_id: null,
      peer_ep_group_id: null,
      ...body,
      dpd: { action: 'hold', interval: 30, timeout: 120, ...(body.dpd as object) },
      auth_mode: 'psk',
      route_mode: 'static',
      // No peer answers in this cloud: the tunnel is configured but down.
      status: 'DOWN',
    });
    return created({
      ipsec_site_connection: state.store(r.projectId, 'ipsec_site_connections', made),
    });
  });
  on('PUT', /^\/v2\.0\/vpn\/ipsec-site-connections\/([^/]+)$/, (r, [id]) => {
    const target = connection(r.projectId, id);
    const readOnly = Object.keys(
      (r.body as { ipsec_site_connection?: object })?.ipsec_site_connection ?? {},
    ).find((field) => !CONNECTION_UPDATE_FIELDS.includes(field));
    if (readOnly) badRequest(`Cannot update read-only attribute ${readOnly}`);
    const body = bodyOf(r, 'ipsec_site_connection', CONNECTION_UPDATE_FIELDS);
    const service = vpnservice(r.projectId, text(target.vpnservice_id));
    checkConnection(body);
    checkConnectionSides(state, r.projectId, service, { ...target, ...body });
    return ok({ ipsec_site_connection: state.update(target, body) });
  });
  on('DELETE', /^\/v2\.0\/vpn\/ipsec-site-connections\/([^/]+)$/, (r, [id]) => {
    connection(r.projectId, id);
    state.own(r.projectId, 'ipsec_site_connections').delete(id);
    return noContent();
  });
}

function checkConnection(body: Record<string, unknown>): void {
  if (body.peer_cidrs !== undefined) {
    const cidrs = body.peer_cidrs;
    if (!Array.isArray(cidrs) || cidrs.some((c) => !parseCidr(text(c)))) {
      badRequest(
        `Invalid input for peer_cidrs. Reason: ${JSON.stringify(cidrs)} is not a valid IP subnet.`,
      );
    }
  }
  if (body.mtu !== undefined && (typeof body.mtu !== 'number' || body.mtu < 68)) {
    badRequest(
      `Invalid input for mtu. Reason: '${text(body.mtu)}' is too small - must be at least '68'.`,
    );
  }
  oneOf(body, 'initiator', ['bi-directional', 'response-only']);
}
