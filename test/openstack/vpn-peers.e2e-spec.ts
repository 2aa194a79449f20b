import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { auditRows, failedFields } from './requests.js';
import { type CloudWorld, createCloudWorld } from './support.js';
import { expectNoPsk, type Peer, PSK, peerBody, vpnOf } from './vpn-support.js';

describe('VPN peers of a gateway over Neutron VPNaaS', () => {
  let w: CloudWorld;
  let vpn: ReturnType<typeof vpnOf>;
  let api: ReturnType<typeof vpnOf>['api'];
  let gateways: string;
  const inOrg = (collection: string) => vpn.inOrg(collection);
  const createGateway = (name?: string) => vpn.createGateway(name);
  const createPeer = (gatewayId: string, extra?: Record<string, unknown>) =>
    vpn.createPeer(gatewayId, extra);
  /** The changes (not the reads) Neutron received since the fake had `from` calls. */
  const changesSince = (from: number) =>
    w.fake.calls.slice(from).filter((c) => c.service === 'network' && c.method !== 'GET');

  beforeAll(async () => {
    w = await createCloudWorld();
    vpn = vpnOf(w);
    ({ api, gateways } = vpn);
  });
  afterAll(async () => {
    await w?.close();
  });

  it("adds a peer (201): an IKE and an IPsec policy of its own with modern defaults, endpoint groups of the gateway's local subnet and of the peer's networks, a connection naming both; never shows its key", async () => {
    const gateway = await createGateway('peered');
    const callsBefore = w.fake.calls.length;
    const created = await api
      .post(`${gateways}/${gateway.id}/vpn_peers`, peerBody({ tenant_id: 'x' }))
      .expect(201);
    expectNoPsk(created.body);
    const peer = created.body.data as Peer;
    expect(peer).toMatchObject({
      name: 'office',
      gateway_id: gateway.id,
      vpnservice_id: gateway.id,
      peer_address: '198.51.100.7',
      peer_id: '198.51.100.7',
      peer_cidrs: ['192.168.10.0/24'],
      mtu: 1500,
      status: 'DOWN',
    });
    const sent = changesSince(callsBefore);
    expect(sent.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /v2.0/vpn/ikepolicies',
      'POST /v2.0/vpn/ipsecpolicies',
      'POST /v2.0/vpn/endpoint-groups',
      'POST /v2.0/vpn/endpoint-groups',
      'POST /v2.0/vpn/ipsec-site-connections',
    ]);
    const [ike, ipsec, local, remote, connection] = sent;
    expect(ike.body).toEqual({
      ikepolicy: {
        name: 'office-ike',
        ike_version: 'v2',
        encryption_algorithm: 'aes-256',
        auth_algorithm: 'sha256',
        pfs: 'group14',
        lifetime: { units: 'seconds', value: 28800 },
      },
    });
    expect(ipsec.body).toEqual({
      ipsecpolicy: {
        name: 'office-ipsec',
        encryption_algorithm: 'aes-256',
        auth_algorithm: 'sha256',
        pfs: 'group14',
        lifetime: { units: 'seconds', value: 3600 },
        transform_protocol: 'esp',
        encapsulation_mode: 'tunnel',
      },
    });
    expect(local.body).toEqual({
      endpoint_group: {
        name: 'office-local',
        type: 'subnet',
        endpoints: [gateway.local_subnet_id],
      },
    });
    expect(remote.body).toEqual({
      endpoint_group: { name: 'office-peer', type: 'cidr', endpoints: ['192.168.10.0/24'] },
    });
    const { peer_cidrs: _cidrs, ...withoutCidrs } = peerBody();
    expect(connection.body).toEqual({
      ipsec_site_connection: {
        ...withoutCidrs,
        peer_id: '198.51.100.7',
        vpnservice_id: gateway.id,
        ikepolicy_id: peer.ikepolicy_id,
        ipsecpolicy_id: peer.ipsecpolicy_id,
        local_ep_group_id: peer.local_ep_group_id,
        peer_ep_group_id: peer.peer_ep_group_id,
      },
    });
    expect(inOrg('ikepolicies').map((p) => p.id)).toContain(peer.ikepolicy_id);
    const groups = new Map(inOrg('endpoint_groups').map((g) => [g.id, g]));
    expect(groups.get(peer.local_ep_group_id)).toMatchObject({
      type: 'subnet',
      endpoints: [gateway.local_subnet_id],
    });
    expect(groups.get(peer.peer_ep_group_id)).toMatchObject({
      type: 'cidr',
      endpoints: ['192.168.10.0/24'],
    });
    // Neutron keeps the peer networks in the group; the connection's own list stays empty.
    expect(inOrg('ipsec_site_connections').find((c) => c.id === peer.id)).toMatchObject({
      peer_cidrs: [],
      psk: PSK,
    });

    const shown = await api.get(`${gateways}/${gateway.id}`).expect(200);
    expectNoPsk(shown.body);
    expect(shown.body.data.peers).toEqual([peer]);
    const listed = await api.get(gateways).expect(200);
    expectNoPsk(listed.body);
    const inList = listed.body.data.find((g: { id: string }) => g.id === gateway.id);
    expect(inList.peers).toEqual([peer]);
  });

  it('undoes the endpoint groups and policies of a peer Neutron refused, last first, and answers its refusal', async () => {
    const gateway = await createGateway('refused');
    const state = vpn.orgState();
    w.fake.fail({
      service: 'network',
      method: 'POST',
      path: /ipsec-site-connections/,
      status: 400,
      body: { NeutronError: { type: 'BadRequest', message: 'peer refused', detail: '' } },
    });
    const callsBefore = w.fake.calls.length;
    const refused = await api.post(`${gateways}/${gateway.id}/vpn_peers`, peerBody()).expect(422);
    expect(refused.body).toMatchObject({
      code: 'upstream_rejected',
      details: { message: 'peer refused' },
    });
    expectNoPsk(refused.body);
    const sent = changesSince(callsBefore).map(
      (c) => `${c.method} ${c.path.replace(/[^/]{36}$/, ':id')}`,
    );
    expect(sent).toEqual([
      'POST /v2.0/vpn/ikepolicies',
      'POST /v2.0/vpn/ipsecpolicies',
      'POST /v2.0/vpn/endpoint-groups',
      'POST /v2.0/vpn/endpoint-groups',
      'POST /v2.0/vpn/ipsec-site-connections',
      'DELETE /v2.0/vpn/endpoint-groups/:id',
      'DELETE /v2.0/vpn/endpoint-groups/:id',
      'DELETE /v2.0/vpn/ipsecpolicies/:id',
      'DELETE /v2.0/vpn/ikepolicies/:id',
    ]);
    expect(vpn.orgState()).toEqual(state);

    // A gateway without a local subnet (as gateways were once made) takes no peers.
    const port = inOrg('ports').find((p) => p.device_id === gateway.router_id)!;
    w.fake.resources.collection(vpn.orgProject(), 'ports').delete(String(port.id));
    const legacy = await api.post(`${gateways}/${gateway.id}/vpn_peers`, peerBody()).expect(409);
    expect(legacy.body).toMatchObject({
      code: 'conflict',
      message: 'The gateway has no local subnet for tunnels; delete it and create it anew',
    });
    expect((await api.get(`${gateways}/${gateway.id}`).expect(200)).body.data).toMatchObject({
      local_cidr: null,
      local_subnet_id: null,
    });
    expect(vpn.orgState()).toEqual({ ...state, ports: state.ports.filter((id) => id !== port.id) });
  });

  it('takes IKE and IPsec choices, and validates every peer field before calling upstream', async () => {
    const gateway = await createGateway('choices');
    await createPeer(gateway.id, {
      peer_id: 'office.example',
      peer_address: 'vpn.office.example',
      mtu: 1400,
      ike: {
        version: 'v1',
        encryption: 'aes-128',
        lifetime: 3600,
        phase1_negotiation_mode: 'main',
      },
      ipsec: { pfs: 'group19', auth: 'sha512' },
    });
    const [ike, ipsec] = w.fake.callsTo('network', 'POST').slice(-5);
    expect(ike.body).toMatchObject({
      ikepolicy: {
        ike_version: 'v1',
        encryption_algorithm: 'aes-128',
        auth_algorithm: 'sha256',
        phase1_negotiation_mode: 'main',
        lifetime: { value: 3600 },
      },
    });
    expect(ipsec.body).toMatchObject({ ipsecpolicy: { pfs: 'group19', auth_algorithm: 'sha512' } });

    const before = w.fake.callsTo('network', 'POST').length;
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ name: '' }, ['name']],
      [{ peer_address: 'not an address!' }, ['peer_address']],
      [{ peer_cidrs: [] }, ['peer_cidrs']],
      [{ peer_cidrs: ['192.168.10.0/33'] }, ['peer_cidrs']],
      [{ peer_cidrs: ['192.168.10.7/24'] }, ['peer_cidrs']],
      [{ peer_cidrs: ['192.168.10.0/24', '2001:db8::/64'] }, ['peer_cidrs']],
      [{ psk: 'short' }, ['psk']],
      [{ psk: 'has spaces in it' }, ['psk']],
      [{ psk: undefined }, ['psk']],
      [{ mtu: 20 }, ['mtu']],
      [{ ike: { version: 'v3' } }, ['ike.version']],
      [{ ike: { encryption: 'des' } }, ['ike.encryption']],
      [{ ipsec: { pfs: 'group2', lifetime: 10 } }, ['ipsec.pfs', 'ipsec.lifetime']],
      [{ ipsec: 'strong' }, ['ipsec']],
    ];
    for (const [extra, fields] of cases) {
      const res = await api
        .post(`${gateways}/${gateway.id}/vpn_peers`, peerBody(extra))
        .expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(failedFields(res.body)).toEqual(fields);
      expect(JSON.stringify(res.body)).not.toContain(PSK);
    }
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);
    const unknown = await api
      .post(`${gateways}/00000000-0000-4000-8000-000000000000/vpn_peers`, peerBody())
      .expect(404);
    expect(unknown.body.code).toBe('not_found');
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);
  });

  it('changes a peer with PATCH (the connection, a new key too) and answers it without the key', async () => {
    const gateway = await createGateway('patched');
    const other = await createGateway('other');
    const peer = await createPeer(gateway.id);
    const callsBefore = w.fake.calls.length;
    const changed = await api
      .patch(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`, {
        name: 'branch',
        psk: 'another-long-secret',
        mtu: 1400,
      })
      .expect(200);
    expectNoPsk(changed.body);
    expect(JSON.stringify(changed.body)).not.toContain('another-long-secret');
    expect(changed.body.data).toMatchObject({
      id: peer.id,
      name: 'branch',
      mtu: 1400,
      peer_cidrs: ['192.168.10.0/24'],
      ikepolicy_id: peer.ikepolicy_id,
      peer_ep_group_id: peer.peer_ep_group_id,
    });
    const sent = changesSince(callsBefore);
    expect(sent.map((c) => `${c.method} ${c.path}`)).toEqual([
      `PUT /v2.0/vpn/ipsec-site-connections/${peer.id}`,
    ]);
    expect(sent[0].body).toEqual({
      ipsec_site_connection: { name: 'branch', psk: 'another-long-secret', mtu: 1400 },
    });
    expect(inOrg('ipsec_site_connections').find((c) => c.id === peer.id)!.psk).toBe(
      'another-long-secret',
    );

    const puts = w.fake.callsTo('network', 'PUT').length;
    const fixed = await api
      .patch(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`, { ike: { version: 'v1' } })
      .expect(422);
    expect(failedFields(fixed.body)).toEqual(['ike']);
    const short = await api
      .patch(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`, { psk: 'x' })
      .expect(422);
    expect(failedFields(short.body)).toEqual(['psk']);
    const cidrs = await api
      .patch(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`, { peer_cidrs: ['10.0.0.1/8'] })
      .expect(422);
    expect(failedFields(cidrs.body)).toEqual(['peer_cidrs']);
    expect(w.fake.callsTo('network', 'PUT')).toHaveLength(puts);

    // A peer is reached through its own gateway only.
    await api.patch(`${gateways}/${other.id}/vpn_peers/${peer.id}`, { name: 'x' }).expect(404);
    await api.del(`${gateways}/${other.id}/vpn_peers/${peer.id}`).expect(404);
    expect(w.fake.callsTo('network', 'PUT')).toHaveLength(puts);
  });

  it('replaces the peer endpoint group on a PATCH of peer_cidrs: a new group, the connection moved to it, the old one deleted', async () => {
    const gateway = await createGateway('moved');
    const peer = await createPeer(gateway.id);
    const callsBefore = w.fake.calls.length;
    const changed = await api
      .patch(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`, {
        peer_cidrs: ['192.168.20.0/24', '192.168.21.0/24'],
        psk: 'another-long-secret',
      })
      .expect(200);
    expectNoPsk(changed.body);
    expect(JSON.stringify(changed.body)).not.toContain('another-long-secret');
    const newGroup = inOrg('endpoint_groups').find(
      (g) => g.id === changed.body.data.peer_ep_group_id,
    )!;
    expect(newGroup.id).not.toBe(peer.peer_ep_group_id);
    expect(newGroup).toMatchObject({
      type: 'cidr',
      endpoints: ['192.168.20.0/24', '192.168.21.0/24'],
    });
    expect(changed.body.data).toMatchObject({
      id: peer.id,
      peer_cidrs: ['192.168.20.0/24', '192.168.21.0/24'],
      local_ep_group_id: peer.local_ep_group_id,
      peer_ep_group_id: newGroup.id,
    });
    const sent = changesSince(callsBefore);
    expect(sent.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /v2.0/vpn/endpoint-groups',
      `PUT /v2.0/vpn/ipsec-site-connections/${peer.id}`,
      `DELETE /v2.0/vpn/endpoint-groups/${peer.peer_ep_group_id}`,
    ]);
    expect(sent[0].body).toEqual({
      endpoint_group: {
        name: 'office-peer',
        type: 'cidr',
        endpoints: ['192.168.20.0/24', '192.168.21.0/24'],
      },
    });
    expect(sent[1].body).toEqual({
      ipsec_site_connection: { psk: 'another-long-secret', peer_ep_group_id: newGroup.id },
    });
    expect(inOrg('endpoint_groups').map((g) => g.id)).not.toContain(peer.peer_ep_group_id);
    const shown = await api.get(`${gateways}/${gateway.id}`).expect(200);
    expect(shown.body.data.peers).toEqual([changed.body.data]);
    const [row] = (await auditRows(w, ['vpn_peers.update'])).filter((r) => r.target_id === peer.id);
    expect(row.details).toEqual({ gateway_id: gateway.id, fields: ['peer_cidrs', 'psk'] });

    // Neutron refusing the move leaves the peer as it was, without the group made for it.
    const state = vpn.orgState();
    w.fake.fail({ service: 'network', method: 'PUT', path: /ipsec-site-connections/, status: 500 });
    await api
      .patch(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`, { peer_cidrs: ['10.9.0.0/16'] })
      .expect(502);
    expect(vpn.orgState()).toEqual(state);
    const after = await api.get(`${gateways}/${gateway.id}`).expect(200);
    expect(after.body.data.peers[0].peer_cidrs).toEqual(['192.168.20.0/24', '192.168.21.0/24']);
  });

  it('deletes a peer with its endpoint groups and policies (204)', async () => {
    const gateway = await createGateway('one-peer');
    const state = vpn.orgState();
    const peer = await createPeer(gateway.id);
    const callsBefore = w.fake.calls.length;
    await api.del(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`).expect(204);
    expect(changesSince(callsBefore).map((c) => `${c.method} ${c.path}`)).toEqual([
      `DELETE /v2.0/vpn/ipsec-site-connections/${peer.id}`,
      `DELETE /v2.0/vpn/endpoint-groups/${peer.local_ep_group_id}`,
      `DELETE /v2.0/vpn/endpoint-groups/${peer.peer_ep_group_id}`,
      `DELETE /v2.0/vpn/ikepolicies/${peer.ikepolicy_id}`,
      `DELETE /v2.0/vpn/ipsecpolicies/${peer.ipsecpolicy_id}`,
    ]);
    expect(vpn.orgState()).toEqual(state);
    await api.del(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`).expect(404);
    expect((await api.get(`${gateways}/${gateway.id}`).expect(200)).body.data.peers).toEqual([]);
  });
});
