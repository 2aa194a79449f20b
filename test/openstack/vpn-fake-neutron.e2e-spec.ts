import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FAKE_EXTERNAL_NETWORK, FakeOpenStack } from '@platform/testing';

interface Answer {
  status: number;
  body: Record<string, Record<string, unknown>> & {
    NeutronError?: { type: string; message: string };
  };
}
type Call = (method: string, path: string, body?: unknown) => Promise<Answer>;

/**
 * The fake Neutron's VPNaaS checked on its own, as a project's user calls it: the refusals
 * that keep the platform honest about what a real cloud accepts.
 */
describe('the fake Neutron: VPN endpoint groups and the sides of a connection', () => {
  let fake: FakeOpenStack;
  let neutron: Call;
  let other: Call;

  /** A Keystone project the fake's user has a role in, and Neutron called with its token. */
  async function projectNeutron(): Promise<Call> {
    const id = randomUUID().replace(/-/g, '');
    fake.keystone.projects.set(id, {
      id,
      name: `vpn-${id}`,
      domain_id: 'default',
      description: '',
      enabled: true,
    });
    fake.keystone.assignments.set(
      `${id}:${fake.keystone.user.id}`,
      new Set([fake.keystone.roles.get('member')!]),
    );
    const { name, password } = fake.keystone.user;
    const auth = await fetch(`${fake.authUrl}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        auth: {
          identity: {
            methods: ['password'],
            password: { user: { name, password, domain: { name: 'Default' } } },
          },
          scope: { project: { id } },
        },
      }),
    });
    const token = auth.headers.get('x-subject-token')!;
    return async (method, path, body) => {
      const res = await fetch(`${fake.origin}/network${path}`, {
        method,
        headers: { 'x-auth-token': token, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : {} };
    };
  }

  const refusal = (answer: Answer) => [answer.status, answer.body.NeutronError?.type];

  /** A router on the external network with a subnet's interface, and a VPN service on it. */
  async function gateway(call: Call, cidr: string, options: { serviceSubnet?: boolean } = {}) {
    const network = (await call('POST', '/v2.0/networks', { network: { name: 'local' } })).body
      .network;
    const subnet = (
      await call('POST', '/v2.0/subnets', {
        subnet: { network_id: network.id, cidr, ip_version: 4 },
      })
    ).body.subnet;
    const router = (
      await call('POST', '/v2.0/routers', {
        router: { external_gateway_info: { network_id: FAKE_EXTERNAL_NETWORK.id } },
      })
    ).body.router;
    await call('PUT', `/v2.0/routers/${String(router.id)}/add_router_interface`, {
      subnet_id: subnet.id,
    });
    const service = (
      await call('POST', '/v2.0/vpn/vpnservices', {
        vpnservice: {
          router_id: router.id,
          ...(options.serviceSubnet ? { subnet_id: subnet.id } : {}),
        },
      })
    ).body.vpnservice;
    const ike = (await call('POST', '/v2.0/vpn/ikepolicies', { ikepolicy: { name: 'i' } })).body
      .ikepolicy;
    const ipsec = (await call('POST', '/v2.0/vpn/ipsecpolicies', { ipsecpolicy: { name: 'p' } }))
      .body.ipsecpolicy;
    return {
      subnetId: String(subnet.id),
      routerId: String(router.id),
      connection: (fields: Record<string, unknown>) =>
        call('POST', '/v2.0/vpn/ipsec-site-connections', {
          ipsec_site_connection: {
            vpnservice_id: service.id,
            ikepolicy_id: ike.id,
            ipsecpolicy_id: ipsec.id,
            peer_address: '198.51.100.7',
            peer_id: '198.51.100.7',
            psk: 'secret-secret',
            ...fields,
          },
        }),
    };
  }

  const group = async (call: Call, type: string, endpoints: unknown) =>
    call('POST', '/v2.0/vpn/endpoint-groups', { endpoint_group: { name: type, type, endpoints } });

  beforeAll(async () => {
    fake = await FakeOpenStack.start();
    neutron = await projectNeutron();
    other = await projectNeutron();
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("keeps endpoint groups per project: created checked, renamed only, another project's not found", async () => {
    const made = await group(neutron, 'cidr', ['192.168.10.0/24', '2001:db8::/64']);
    expect(made.status).toBe(201);
    const id = String(made.body.endpoint_group.id);
    expect(made.body.endpoint_group).toMatchObject({
      name: 'cidr',
      type: 'cidr',
      endpoints: ['192.168.10.0/24', '2001:db8::/64'],
    });
    const listed = await neutron('GET', '/v2.0/vpn/endpoint-groups?type=cidr');
    expect(listed.body.endpoint_groups).toEqual([made.body.endpoint_group]);
    expect((await neutron('GET', `/v2.0/vpn/endpoint-groups/${id}`)).status).toBe(200);
    const renamed = await neutron('PUT', `/v2.0/vpn/endpoint-groups/${id}`, {
      endpoint_group: { name: 'office' },
    });
    expect(renamed.body.endpoint_group).toMatchObject({ name: 'office', type: 'cidr' });
    const moved = await neutron('PUT', `/v2.0/vpn/endpoint-groups/${id}`, {
      endpoint_group: { endpoints: ['10.0.0.0/8'] },
    });
    expect([moved.status, moved.body.NeutronError?.message]).toEqual([
      400,
      'Cannot update read-only attribute endpoints',
    ]);

    expect(refusal(await other('GET', `/v2.0/vpn/endpoint-groups/${id}`))).toEqual([
      404,
      'VPNEndpointGroupNotFound',
    ]);
    expect((await other('GET', '/v2.0/vpn/endpoint-groups')).body.endpoint_groups).toEqual([]);
    expect(refusal(await other('DELETE', `/v2.0/vpn/endpoint-groups/${id}`))).toEqual([
      404,
      'VPNEndpointGroupNotFound',
    ]);

    expect(refusal(await group(neutron, 'cidr', []))).toEqual([400, 'HTTPBadRequest']);
    expect(refusal(await group(neutron, 'cidr', ['10.0.0.5/8']))).toEqual([
      400,
      'InvalidEndpointInEndpointGroup',
    ]);
    expect(refusal(await group(neutron, 'zone', ['x']))).toEqual([400, 'HTTPBadRequest']);
    const theirs = await gateway(other, '10.1.0.0/24');
    const foreign = await group(neutron, 'subnet', [theirs.subnetId]);
    expect([foreign.status, foreign.body.NeutronError]).toEqual([
      400,
      {
        type: 'NonExistingSubnetInEndpointGroup',
        message: `Subnet ${theirs.subnetId} in endpoint group does not exist`,
        detail: '',
      },
    ]);

    expect((await neutron('DELETE', `/v2.0/vpn/endpoint-groups/${id}`)).status).toBe(204);
    expect((await neutron('GET', `/v2.0/vpn/endpoint-groups/${id}`)).status).toBe(404);
  });

  it('refuses peer_cidrs on a VPN service without a subnet, and wants both endpoint groups there', async () => {
    const gw = await gateway(neutron, '10.2.0.0/24');
    const local = String((await group(neutron, 'subnet', [gw.subnetId])).body.endpoint_group.id);
    const peer = String((await group(neutron, 'cidr', ['192.168.10.0/24'])).body.endpoint_group.id);

    const legacy = await gw.connection({ peer_cidrs: ['192.168.10.0/24'] });
    expect([
      legacy.status,
      legacy.body.NeutronError?.type,
      legacy.body.NeutronError?.message,
    ]).toEqual([
      400,
      'PeerCidrsInvalid',
      'Peer CIDRs cannot be specified, when using endpoint groups',
    ]);
    const neither = await gw.connection({});
    expect([neither.status, neither.body.NeutronError?.message]).toEqual([
      400,
      'Missing endpoint groups local and peer for IPSec site-to-site connection',
    ]);
    const noPeer = await gw.connection({ local_ep_group_id: local });
    expect(noPeer.body.NeutronError?.message).toBe(
      'Missing endpoint group peer for IPSec site-to-site connection',
    );
    const swapped = await gw.connection({ local_ep_group_id: peer, peer_ep_group_id: local });
    expect([swapped.status, swapped.body.NeutronError?.message]).toEqual([
      400,
      `Endpoint group ${peer} type is 'cidr' and should be 'subnet'`,
    ]);

    const made = await gw.connection({ local_ep_group_id: local, peer_ep_group_id: peer });
    expect(made.status).toBe(201);
    const connection = made.body.ipsec_site_connection;
    expect(connection).toMatchObject({
      peer_cidrs: [],
      local_ep_group_id: local,
      peer_ep_group_id: peer,
    });
    const path = `/v2.0/vpn/ipsec-site-connections/${String(connection.id)}`;
    expect(
      refusal(
        await neutron('PUT', path, { ipsec_site_connection: { peer_cidrs: ['10.9.0.0/16'] } }),
      ),
    ).toEqual([400, 'PeerCidrsInvalid']);

    // Groups in use stay; so do their subnet and its interface on the service's router.
    const inUse = await neutron('DELETE', `/v2.0/vpn/endpoint-groups/${peer}`);
    expect([inUse.status, inUse.body.NeutronError]).toEqual([
      400,
      {
        type: 'EndpointGroupInUse',
        message: `Endpoint group ${peer} is in use and cannot be deleted`,
        detail: '',
      },
    ]);
    const detach = await neutron('PUT', `/v2.0/routers/${gw.routerId}/remove_router_interface`, {
      subnet_id: gw.subnetId,
    });
    expect(refusal(detach)).toEqual([409, 'SubnetInUseByIPsecSiteConnection']);
    expect((await neutron('DELETE', path)).status).toBe(204);
    const subnetInGroup = await neutron('DELETE', `/v2.0/subnets/${gw.subnetId}`);
    expect([subnetInGroup.status, subnetInGroup.body.NeutronError?.message]).toEqual([
      409,
      `Subnet ${gw.subnetId} is used by endpoint group ${local}`,
    ]);
    for (const id of [local, peer]) {
      expect((await neutron('DELETE', `/v2.0/vpn/endpoint-groups/${id}`)).status).toBe(204);
    }
  });

  it("wants the local group's subnets on the service's router, of the peers' IP version", async () => {
    const gw = await gateway(neutron, '10.3.0.0/24');
    const network = (await neutron('POST', '/v2.0/networks', { network: {} })).body.network;
    const loose = (
      await neutron('POST', '/v2.0/subnets', {
        subnet: { network_id: network.id, cidr: '10.4.0.0/24', ip_version: 4 },
      })
    ).body.subnet;
    const local = String((await group(neutron, 'subnet', [loose.id])).body.endpoint_group.id);
    const peer = String((await group(neutron, 'cidr', ['192.168.10.0/24'])).body.endpoint_group.id);
    const detached = await gw.connection({ local_ep_group_id: local, peer_ep_group_id: peer });
    expect([detached.status, detached.body.NeutronError?.message]).toEqual([
      400,
      `Subnet ${String(loose.id)} is not connected to Router ${gw.routerId}`,
    ]);
    const attached = String((await group(neutron, 'subnet', [gw.subnetId])).body.endpoint_group.id);
    const v6 = String((await group(neutron, 'cidr', ['2001:db8::/64'])).body.endpoint_group.id);
    expect(
      refusal(await gw.connection({ local_ep_group_id: attached, peer_ep_group_id: v6 })),
    ).toEqual([400, 'MixedIPVersionsForIPSecConnection']);
  });

  it('keeps peer_cidrs and refuses endpoint groups on a VPN service with a subnet', async () => {
    const gw = await gateway(neutron, '10.5.0.0/24', { serviceSubnet: true });
    const local = String((await group(neutron, 'subnet', [gw.subnetId])).body.endpoint_group.id);
    const peer = String((await group(neutron, 'cidr', ['192.168.10.0/24'])).body.endpoint_group.id);
    const grouped = await gw.connection({
      peer_cidrs: ['192.168.10.0/24'],
      local_ep_group_id: local,
      peer_ep_group_id: peer,
    });
    expect([grouped.status, grouped.body.NeutronError?.message]).toEqual([
      400,
      'Endpoint groups local and peer cannot be specified, when VPN Service has subnet specified',
    ]);
    expect(refusal(await gw.connection({}))).toEqual([400, 'MissingPeerCidrs']);
    expect((await gw.connection({ peer_cidrs: ['192.168.10.0/24'] })).status).toBe(201);
    const detach = await neutron('PUT', `/v2.0/routers/${gw.routerId}/remove_router_interface`, {
      subnet_id: gw.subnetId,
    });
    expect(refusal(detach)).toEqual([409, 'SubnetInUseByVPNService']);
  });
});
