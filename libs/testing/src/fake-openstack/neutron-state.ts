import { randomBytes, randomUUID } from 'node:crypto';
import {
  type FakeReply,
  type FakeRequest,
  type FakeService,
  neutronError,
  type ProjectResources,
} from './fake-service.js';
import { contains, formatAddress, lastOf, parseAddress, parseCidr } from './ip-math.js';

export type NeutronObject = Record<string, unknown> & { id: string };

/** A value as Neutron's messages and filters write it. */
export const text = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');

/**
 * The Keystone project the cloud's operator owns: the shared external network, its subnet and
 * the ports of router gateways and floating IPs live here, so no tenant lists them as its own.
 */
export const NEUTRON_SERVICE_PROJECT = 'neutron-service-project';

/** The shared external network (`router:external`) every project sees. */
export const FAKE_EXTERNAL_NETWORK = {
  id: '0a4c8a52-7f3e-4d2b-9a61-3c5e8f1b2d01',
  name: 'public',
  subnetId: '0a4c8a52-7f3e-4d2b-9a61-3c5e8f1b2d02',
  /** TEST-NET-3: few addresses, so running out of them is easy to provoke. */
  cidr: '203.0.113.0/26',
};

/** A refusal a handler throws; the service answers it as Neutron would. */
export class NeutronRefusal extends Error {
  constructor(readonly reply: FakeReply) {
    super(`neutron refusal ${reply.status}`);
  }
}

export const refuse = (status: number, type: string, message: string): never => {
  throw new NeutronRefusal(neutronError(status, type, message));
};

export const badRequest = (message: string): never => refuse(400, 'HTTPBadRequest', message);

export const invalidInput = (message: string): never =>
  refuse(400, 'InvalidInput', `Invalid input for operation: ${message}.`);

/**
 * The object under `key` of a create or update body, refused as Neutron refuses it: no such
 * key, or an attribute the resource does not have.
 */
export function bodyOf(request: FakeRequest, key: string, allowed: readonly string[]) {
  const object = (request.body as Record<string, unknown> | undefined)?.[key];
  if (!object || typeof object !== 'object' || Array.isArray(object)) {
    return badRequest(`Unable to find '${key}' in request body`);
  }
  const unknown = Object.keys(object).filter((name) => !allowed.includes(name));
  if (unknown.length) badRequest(`Unrecognized attribute(s) '${unknown.join(', ')}'`);
  const record = object as Record<string, unknown>;
  // Setting another project as the owner is the cloud admin's.
  for (const owner of ['tenant_id', 'project_id']) {
    if (record[owner] !== undefined && record[owner] !== request.projectId) {
      refuse(403, 'PolicyNotAuthorized', `rule:create_${key} is disallowed by policy`);
    }
  }
  return record;
}

/** Neutron's list filters: `field=value` pairs (repeated: any of them), other keys ignored. */
export function filtered(objects: NeutronObject[], query: URLSearchParams): NeutronObject[] {
  const keys = [...new Set(query.keys())].filter(
    (key) => !['fields', 'limit', 'marker', 'sort_key', 'sort_dir'].includes(key),
  );
  return objects.filter((object) =>
    keys.every((key) => {
      if (!(key in object)) return true;
      const value = object[key];
      return query
        .getAll(key)
        .some((wanted) =>
          typeof value === 'boolean'
            ? text(value) === wanted.toLowerCase()
            : text(value) === wanted,
        );
    }),
  );
}

const macAddress = () =>
  `fa:16:3e:${[...randomBytes(3)].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;

/**
 * What the fake Neutron keeps, in the fake's per-project resources: each project's
 * networks, subnets, ports, routers, floating IPs, security groups and VPN objects, and the
 * operator's shared external network.
 */
export class NeutronState {
  constructor(readonly resources: ProjectResources) {
    this.seedExternalNetwork();
  }

  own(projectId: string, collection: string): Map<string, NeutronObject> {
    return this.resources.collection(projectId, collection) as Map<string, NeutronObject>;
  }

  list(projectId: string, collection: string): NeutronObject[] {
    return [...this.own(projectId, collection).values()];
  }

  /** An object of the project, or Neutron's 404 (`<type>NotFound`). */
  find(projectId: string, collection: string, id: string, type: string, what: string) {
    return (
      this.own(projectId, collection).get(id) ??
      refuse(404, `${type}NotFound`, `${what} ${id} could not be found.`)
    );
  }

  /** Networks a project sees: its own, and the shared or external ones. */
  visibleNetworks(projectId: string): NeutronObject[] {
    const shared = this.list(NEUTRON_SERVICE_PROJECT, 'networks').filter(
      (n) => n.shared === true || n['router:external'] === true,
    );
    return projectId === NEUTRON_SERVICE_PROJECT
      ? shared
      : [...this.list(projectId, 'networks'), ...shared];
  }

  visibleNetwork(projectId: string, id: string): NeutronObject {
    return (
      this.visibleNetworks(projectId).find((n) => n.id === id) ??
      refuse(404, 'NetworkNotFound', `Network ${id} could not be found.`)
    );
  }

  /** A subnet anywhere (the external one is the operator's): for allocations only. */
  subnetAnywhere(id: string): NeutronObject | undefined {
    return this.resources.everywhere('subnets').find((s) => s.id === id) as
      NeutronObject | undefined;
  }

  /** A new object with the fields every Neutron resource has. */
  stamp(projectId: string, fields: Record<string, unknown>): NeutronObject {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    return {
      id: randomUUID(),
      description: '',
      tenant_id: projectId,
      project_id: projectId,
      tags: [],
      created_at: now,
      updated_at: now,
      revision_number: 0,
      ...fields,
    } as NeutronObject;
  }

  store(projectId: string, collection: string, object: NeutronObject): NeutronObject {
    this.own(projectId, collection).set(object.id, object);
    return object;
  }

  /** Applies an update as Neutron does: the fields given, a new revision. */
  update(object: NeutronObject, changes: Record<string, unknown>): NeutronObject {
    Object.assign(object, changes, {
      updated_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      revision_number: (object.revision_number as number) + 1,
    });
    return object;
  }

  /** Every port of every project (addresses are unique per subnet, whoever holds them). */
  allPorts(): NeutronObject[] {
    return this.resources.everywhere('ports') as NeutronObject[];
  }

  /**
   * An address of the subnet for a new port: the one asked for, if it is in the subnet and
   * free, else the first free one of its allocation pools.
   */
  allocate(subnet: NeutronObject, requested?: string): string {
    const cidr = parseCidr(text(subnet.cidr))!;
    const used = new Set(
      this.allPorts().flatMap((p) =>
        (p.fixed_ips as Array<{ subnet_id: string; ip_address: string }>)
          .filter((ip) => ip.subnet_id === subnet.id)
          .map((ip) => ip.ip_address),
      ),
    );
    if (requested !== undefined) {
      const address = parseAddress(requested);
      if (!address || !contains(cidr, address)) {
        invalidInput(`IP address ${requested} is not a valid IP for the specified subnet`);
      }
      const wanted = formatAddress(address!);
      if (used.has(wanted)) {
        refuse(
          409,
          'IpAddressAlreadyAllocated',
          `IP address ${wanted} already allocated in subnet ${subnet.id}`,
        );
      }
      return wanted;
    }
    for (const pool of subnet.allocation_pools as Array<{ start: string; end: string }>) {
      const end = parseAddress(pool.end)!.value;
      for (let value = parseAddress(pool.start)!.value; value <= end; value++) {
        const candidate = formatAddress({ version: cidr.version, value });
        if (!used.has(candidate)) return candidate;
      }
    }
    return refuse(
      409,
      'IpAddressGenerationFailure',
      `No more IP addresses available on network ${text(subnet.network_id)}.`,
    );
  }

  /** A port with an address on each of its subnets. */
  createPort(
    projectId: string,
    fields: {
      network_id: string;
      subnets: Array<{ subnet: NeutronObject; ip_address?: string }>;
      device_owner?: string;
      device_id?: string;
      security_groups?: string[];
      name?: string;
    },
  ): NeutronObject {
    const fixed_ips = fields.subnets.map(({ subnet, ip_address }) => ({
      subnet_id: subnet.id,
      ip_address: this.allocate(subnet, ip_address),
    }));
    return this.store(
      projectId,
      'ports',
      this.stamp(projectId, {
        name: fields.name ?? '',
        network_id: fields.network_id,
        mac_address: macAddress(),
        admin_state_up: true,
        status: fields.device_owner ? 'ACTIVE' : 'DOWN',
        device_id: fields.device_id ?? '',
        device_owner: fields.device_owner ?? '',
        fixed_ips,
        security_groups: fields.security_groups ?? [],
        allowed_address_pairs: [],
        extra_dhcp_opts: [],
        'binding:vnic_type': 'normal',
        port_security_enabled: true,
        ...(projectId === NEUTRON_SERVICE_PROJECT ? { tenant_id: '', project_id: '' } : {}),
      }),
    );
  }

  deletePort(projectId: string, id: string): void {
    this.own(projectId, 'ports').delete(id);
  }

  /** The default pool of a subnet: its addresses but the network, gateway and broadcast. */
  static defaultPool(cidrText: string, gateway: string | null) {
    const cidr = parseCidr(cidrText)!;
    const first = cidr.network + 1n;
    const last = cidr.version === 4 ? lastOf(cidr) - 1n : lastOf(cidr);
    const gatewayValue = gateway === null ? null : parseAddress(gateway)!.value;
    const start = gatewayValue === first ? first + 1n : first;
    return [
      {
        start: formatAddress({ version: cidr.version, value: start }),
        end: formatAddress({ version: cidr.version, value: last }),
      },
    ];
  }

  private seedExternalNetwork(): void {
    const networks = this.own(NEUTRON_SERVICE_PROJECT, 'networks');
    if (networks.has(FAKE_EXTERNAL_NETWORK.id)) return;
    const owner = NEUTRON_SERVICE_PROJECT;
    const gateway = '203.0.113.1';
    this.store(
      owner,
      'networks',
      this.stamp(owner, {
        id: FAKE_EXTERNAL_NETWORK.id,
        name: FAKE_EXTERNAL_NETWORK.name,
        admin_state_up: true,
        status: 'ACTIVE',
        subnets: [FAKE_EXTERNAL_NETWORK.subnetId],
        shared: false,
        'router:external': true,
        mtu: 1500,
        port_security_enabled: true,
        availability_zone_hints: [],
        availability_zones: ['nova'],
        is_default: true,
      }),
    );
    this.store(
      owner,
      'subnets',
      this.stamp(owner, {
        id: FAKE_EXTERNAL_NETWORK.subnetId,
        name: 'public-subnet',
        network_id: FAKE_EXTERNAL_NETWORK.id,
        cidr: FAKE_EXTERNAL_NETWORK.cidr,
        ip_version: 4,
        gateway_ip: gateway,
        enable_dhcp: false,
        allocation_pools: NeutronState.defaultPool(FAKE_EXTERNAL_NETWORK.cidr, gateway),
        dns_nameservers: [],
        host_routes: [],
        ipv6_ra_mode: null,
        ipv6_address_mode: null,
        subnetpool_id: null,
        service_types: [],
      }),
    );
  }
}

type Handler = (request: FakeRequest, params: string[]) => FakeReply;

/** Adds a route to the fake Neutron; a handler refuses by throwing a `NeutronRefusal`. */
export type NeutronRoute = (method: string, pattern: RegExp, handler: Handler) => void;

export const neutronRoutesOn =
  (service: FakeService, before: (request: FakeRequest) => void): NeutronRoute =>
  (method, pattern, handler) => {
    service.on(method, pattern, (request, params) => {
      try {
        before(request);
        return handler(request, params);
      } catch (error) {
        if (error instanceof NeutronRefusal) return error.reply;
        throw error;
      }
    });
  };

export const ok = (body: unknown): FakeReply => ({ status: 200, body });
export const created = (body: unknown): FakeReply => ({ status: 201, body });
export const noContent = (): FakeReply => ({ status: 204 });
