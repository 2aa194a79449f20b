import { Injectable } from '@nestjs/common';
import { CloudAudit, CloudErrorCode, CloudException } from '@platform/cloud-core';
import type { Principal } from '@platform/identity';
import {
  ENDPOINT_GROUPS,
  IKE_POLICIES,
  IPSEC_POLICIES,
  IPSEC_SITE_CONNECTIONS,
  Neutron,
  type NeutronKind,
  type NeutronObject,
  VPN_SERVICES,
} from '../network/neutron.js';
import { TenantClouds } from '../tenancy/tenant-cloud.js';
import type { CreateVpnPeerBody, UpdateVpnPeerBody } from './vpn.dto.js';
import { localSubnets } from './vpn-local-side.js';
import { peerView } from './vpn-views.js';

/** Modern defaults, as dashboards offer them; Neutron's own (IKEv1, aes-128, sha1, group5) are not. */
const IKE_DEFAULTS = { version: 'v2', encryption: 'aes-256', auth: 'sha256', pfs: 'group14' };
const IPSEC_DEFAULTS = { encryption: 'aes-256', auth: 'sha256', pfs: 'group14' };
/** IKE SAs live 8 hours, IPsec SAs 1 hour: what most peers expect. */
const IKE_LIFETIME_S = 28_800;
const IPSEC_LIFETIME_S = 3_600;

/**
 * The peers of a VPN gateway: each an IPsec site connection with an IKE and an IPsec policy
 * and two endpoint groups of its own, created alongside it and deleted with it: the local
 * group names the gateway's local subnet, the peer group the peer's networks.
 */
@Injectable()
export class VpnPeersService {
  constructor(
    private readonly clouds: TenantClouds,
    private readonly audit: CloudAudit,
  ) {}

  async neutronOf(principal: Principal): Promise<Neutron> {
    return new Neutron(await this.clouds.ofOrganization(principal));
  }

  async create(
    principal: Principal,
    gatewayId: string,
    body: CreateVpnPeerBody,
  ): Promise<NeutronObject> {
    const neutron = await this.neutronOf(principal);
    const localSubnet = await this.localSubnetOf(neutron, gatewayId);
    const { ike: ikeOptions, ipsec: ipsecOptions, peer_cidrs: peerCidrs, ...fields } = body;
    const ike = { ...IKE_DEFAULTS, ...ikeOptions };
    const ipsec = { ...IPSEC_DEFAULTS, ...ipsecOptions };
    const made: Array<[NeutronKind, string]> = [];
    let connection: NeutronObject;
    let peerGroup: NeutronObject;
    try {
      const ikePolicy = await neutron.create(IKE_POLICIES, {
        name: `${body.name}-ike`,
        ike_version: ike.version,
        encryption_algorithm: ike.encryption,
        auth_algorithm: ike.auth,
        pfs: ike.pfs,
        lifetime: { units: 'seconds', value: ike.lifetime ?? IKE_LIFETIME_S },
        ...(ike.phase1_negotiation_mode
          ? { phase1_negotiation_mode: ike.phase1_negotiation_mode }
          : {}),
      });
      made.push([IKE_POLICIES, ikePolicy.id]);
      const ipsecPolicy = await neutron.create(IPSEC_POLICIES, {
        name: `${body.name}-ipsec`,
        encryption_algorithm: ipsec.encryption,
        auth_algorithm: ipsec.auth,
        pfs: ipsec.pfs,
        lifetime: { units: 'seconds', value: ipsec.lifetime ?? IPSEC_LIFETIME_S },
        transform_protocol: ipsec.transform_protocol ?? 'esp',
        encapsulation_mode: ipsec.encapsulation_mode ?? 'tunnel',
      });
      made.push([IPSEC_POLICIES, ipsecPolicy.id]);
      const localGroup = await neutron.create(ENDPOINT_GROUPS, {
        name: `${body.name}-local`,
        type: 'subnet',
        endpoints: [localSubnet.id],
      });
      made.push([ENDPOINT_GROUPS, localGroup.id]);
      peerGroup = await this.createPeerGroup(neutron, body.name, peerCidrs);
      made.push([ENDPOINT_GROUPS, peerGroup.id]);
      connection = await neutron.create(IPSEC_SITE_CONNECTIONS, {
        ...fields,
        peer_id: fields.peer_id ?? fields.peer_address,
        vpnservice_id: gatewayId,
        ikepolicy_id: ikePolicy.id,
        ipsecpolicy_id: ipsecPolicy.id,
        local_ep_group_id: localGroup.id,
        peer_ep_group_id: peerGroup.id,
      });
    } catch (error) {
      // The policies and groups of a peer that was not made would belong to nothing: remove
      // them. The failure that stopped the peer is the answer, whatever becomes of this cleanup.
      for (const [kind, id] of made.reverse())
        await neutron.delete(kind, id).catch(() => undefined);
      throw error;
    }
    await this.audit.record(
      principal,
      'vpn_peers.create',
      { type: 'vpn_peer', id: connection.id },
      { gateway_id: gatewayId, name: body.name, peer_address: body.peer_address },
    );
    return peerView(connection, [peerGroup]);
  }

  /**
   * Changes the connection. New `peer_cidrs` are a new peer endpoint group (Neutron cannot
   * change a group's endpoints): made first, the connection moved to it, then the old one
   * deleted, so the peer never lacks one.
   */
  async update(
    principal: Principal,
    gatewayId: string,
    id: string,
    body: UpdateVpnPeerBody,
  ): Promise<NeutronObject> {
    const neutron = await this.neutronOf(principal);
    const current = await this.connectionOf(neutron, gatewayId, id);
    const { ike: _ike, ipsec: _ipsec, ...changes } = body;
    const { peer_cidrs: peerCidrs, ...fields } = changes;
    const newGroup = peerCidrs
      ? await this.createPeerGroup(neutron, fields.name ?? String(current.name), peerCidrs)
      : undefined;
    let updated: NeutronObject;
    try {
      updated = await neutron.update(IPSEC_SITE_CONNECTIONS, id, {
        ...fields,
        ...(newGroup ? { peer_ep_group_id: newGroup.id } : {}),
      });
    } catch (error) {
      if (newGroup) await neutron.delete(ENDPOINT_GROUPS, newGroup.id).catch(() => undefined);
      throw error;
    }
    // Recorded before the old group goes: the change took effect even if that delete fails.
    await this.audit.record(
      principal,
      'vpn_peers.update',
      { type: 'vpn_peer', id },
      // The names of the changed fields only: a new psk must not reach the audit log.
      { gateway_id: gatewayId, fields: Object.keys(changes) },
    );
    const oldGroup = current.peer_ep_group_id as string | null;
    if (newGroup && oldGroup) await neutron.delete(ENDPOINT_GROUPS, oldGroup);
    return peerView(updated, newGroup ? [newGroup] : await this.peerGroupsOf(neutron, updated));
  }

  async delete(principal: Principal, gatewayId: string, id: string): Promise<void> {
    const neutron = await this.neutronOf(principal);
    await this.remove(principal, neutron, await this.connectionOf(neutron, gatewayId, id));
  }

  /**
   * Deletes the connection, then its endpoint groups and policies (which Neutron keeps while
   * it is in use).
   */
  async remove(principal: Principal, neutron: Neutron, connection: NeutronObject): Promise<void> {
    await neutron.delete(IPSEC_SITE_CONNECTIONS, connection.id);
    // Null on a connection that names its peer networks itself (`peer_cidrs`).
    const groups = [connection.local_ep_group_id, connection.peer_ep_group_id] as Array<
      string | null
    >;
    for (const group of groups) if (group) await neutron.delete(ENDPOINT_GROUPS, group);
    await neutron.delete(IKE_POLICIES, String(connection.ikepolicy_id));
    await neutron.delete(IPSEC_POLICIES, String(connection.ipsecpolicy_id));
    await this.audit.record(
      principal,
      'vpn_peers.delete',
      { type: 'vpn_peer', id: connection.id },
      { gateway_id: connection.vpnservice_id },
    );
  }

  private createPeerGroup(neutron: Neutron, peerName: string, cidrs: string[]) {
    return neutron.create(ENDPOINT_GROUPS, {
      name: `${peerName}-peer`,
      type: 'cidr',
      endpoints: cidrs,
    });
  }

  /** The connection's peer endpoint group, if it has one. */
  private async peerGroupsOf(neutron: Neutron, connection: NeutronObject) {
    const id = connection.peer_ep_group_id as string | null;
    return id ? [await neutron.show(ENDPOINT_GROUPS, id)] : [];
  }

  /**
   * The subnet the gateway's tunnels connect on our side: a gateway (404 if there is none of
   * this id) made before gateways had one cannot take peers.
   */
  private async localSubnetOf(neutron: Neutron, gatewayId: string): Promise<NeutronObject> {
    const service = await neutron.show(VPN_SERVICES, gatewayId);
    const routerId = String(service.router_id);
    const subnet = (await localSubnets(neutron, routerId)).get(routerId);
    if (!subnet) {
      throw new CloudException(
        CloudErrorCode.Conflict,
        'The gateway has no local subnet for tunnels; delete it and create it anew',
      );
    }
    return subnet;
  }

  /** The connection, when it is a peer of this gateway: one of another is not found here. */
  private async connectionOf(
    neutron: Neutron,
    gatewayId: string,
    id: string,
  ): Promise<NeutronObject> {
    const connection = await neutron.show(IPSEC_SITE_CONNECTIONS, id);
    if (connection.vpnservice_id !== gatewayId) {
      throw new CloudException(CloudErrorCode.NotFound, 'Resource not found');
    }
    return connection;
  }
}
