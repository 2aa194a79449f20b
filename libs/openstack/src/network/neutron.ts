import { Injectable } from '@nestjs/common';
import { CloudAudit } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import { type TenantCloud, TenantClouds } from '../tenancy/tenant-cloud.js';

/** A Neutron object as Neutron answers it, without its wrapper key. */
export type NeutronObject = Record<string, unknown> & { id: string };

/** One kind of Neutron object: where it lives, the keys wrapping one and many, its audit names. */
export interface NeutronKind {
  /** Below the network endpoint, e.g. `/v2.0/networks`. */
  path: string;
  one: string;
  many: string;
  /** `<area>` of its audit actions (`networks.create`). */
  area: string;
  /** The audit target type. */
  target: string;
}

const kind = (path: string, one: string, many: string, area = many, target = one): NeutronKind => ({
  path: `/v2.0/${path}`,
  one,
  many,
  area,
  target,
});

export const SECURITY_GROUPS = kind('security-groups', 'security_group', 'security_groups');
export const SECURITY_GROUP_RULES = kind(
  'security-group-rules',
  'security_group_rule',
  'security_group_rules',
);
export const NETWORKS = kind('networks', 'network', 'networks');
export const SUBNETS = kind('subnets', 'subnet', 'subnets');
export const PORTS = kind('ports', 'port', 'ports');
export const ROUTERS = kind('routers', 'router', 'routers');
export const FLOATING_IPS = kind(
  'floatingips',
  'floatingip',
  'floatingips',
  'floating_ips',
  'floating_ip',
);
export const VPN_SERVICES = kind('vpn/vpnservices', 'vpnservice', 'vpnservices');
export const IKE_POLICIES = kind('vpn/ikepolicies', 'ikepolicy', 'ikepolicies');
export const IPSEC_POLICIES = kind('vpn/ipsecpolicies', 'ipsecpolicy', 'ipsecpolicies');
export const ENDPOINT_GROUPS = kind('vpn/endpoint-groups', 'endpoint_group', 'endpoint_groups');
export const IPSEC_SITE_CONNECTIONS = kind(
  'vpn/ipsec-site-connections',
  'ipsec_site_connection',
  'ipsec_site_connections',
);

/** Neutron of one tenant's cloud: puts the wrapper key on what it sends and takes it off answers. */
export class Neutron {
  constructor(private readonly cloud: TenantCloud) {}

  async list(kind: NeutronKind, query?: Record<string, string>): Promise<NeutronObject[]> {
    const answer = await this.cloud.call<Record<string, NeutronObject[]>>('network', {
      method: 'GET',
      path: kind.path,
      query,
    });
    return answer[kind.many];
  }

  async show(kind: NeutronKind, id: string): Promise<NeutronObject> {
    const answer = await this.cloud.call<Record<string, NeutronObject>>('network', {
      method: 'GET',
      path: `${kind.path}/${id}`,
    });
    return answer[kind.one];
  }

  async create(kind: NeutronKind, fields: object): Promise<NeutronObject> {
    const answer = await this.cloud.call<Record<string, NeutronObject>>('network', {
      method: 'POST',
      path: kind.path,
      body: { [kind.one]: fields },
    });
    return answer[kind.one];
  }

  /** Neutron updates with PUT, changing only the fields sent. */
  async update(kind: NeutronKind, id: string, fields: object): Promise<NeutronObject> {
    const answer = await this.cloud.call<Record<string, NeutronObject>>('network', {
      method: 'PUT',
      path: `${kind.path}/${id}`,
      body: { [kind.one]: fields },
    });
    return answer[kind.one];
  }

  async delete(kind: NeutronKind, id: string): Promise<void> {
    await this.cloud.call('network', { method: 'DELETE', path: `${kind.path}/${id}` });
  }

  /** An action on an object (`PUT /v2.0/routers/{id}/add_router_interface`), body unwrapped. */
  action<T>(kind: NeutronKind, id: string, action: string, body: object): Promise<T> {
    return this.cloud.call<T>('network', {
      method: 'PUT',
      path: `${kind.path}/${id}/${action}`,
      body,
    });
  }
}

/** What a create or change forwards: never the owner fields, which name our project, not Neutron's. */
export function forwarded<T extends object>(body: T): Omit<T, 'project_id' | 'tenant_id'> {
  const {
    project_id: _project,
    tenant_id: _tenant,
    ...fields
  } = body as T & {
    project_id?: unknown;
    tenant_id?: unknown;
  };
  return fields;
}

/**
 * The Neutron of the request's project, for the plain routes of a kind: reads, and creates,
 * changes and deletes audited as `<area>.<verb>` once Neutron accepted them.
 */
@Injectable()
export class ProjectNeutron {
  constructor(
    private readonly clouds: TenantClouds,
    private readonly audit: CloudAudit,
  ) {}

  async of(principal: Principal): Promise<Neutron> {
    return new Neutron(await this.clouds.ofProject(principal));
  }

  async list(principal: Principal, kind: NeutronKind, query?: Record<string, string>) {
    return (await this.of(principal)).list(kind, query);
  }

  async show(principal: Principal, kind: NeutronKind, id: string) {
    return (await this.of(principal)).show(kind, id);
  }

  async create(principal: Principal, kind: NeutronKind, body: object): Promise<NeutronObject> {
    const created = await (await this.of(principal)).create(kind, forwarded(body));
    await this.audit.record(
      principal,
      `${kind.area}.create`,
      { type: kind.target, id: created.id },
      typeof created.name === 'string' ? { name: created.name } : {},
    );
    return created;
  }

  async update(principal: Principal, kind: NeutronKind, id: string, body: object) {
    const fields = forwarded(body);
    const updated = await (await this.of(principal)).update(kind, id, fields);
    await this.audit.record(
      principal,
      `${kind.area}.update`,
      { type: kind.target, id },
      { fields: Object.keys(fields) },
    );
    return updated;
  }

  async delete(principal: Principal, kind: NeutronKind, id: string): Promise<void> {
    await (await this.of(principal)).delete(kind, id);
    await this.audit.record(principal, `${kind.area}.delete`, { type: kind.target, id });
  }
}
