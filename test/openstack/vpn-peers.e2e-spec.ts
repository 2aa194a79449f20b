import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { failedFields } from './requests.js';
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

  beforeAll(async () => {
    w = await createCloudWorld();
    vpn = vpnOf(w);
    ({ api, gateways } = vpn);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('adds a peer (201) with an IKE and an IPsec policy of its own, modern defaults, and never shows its key', async () => {
    const gateway = await createGateway('peered');
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
    const [ike, ipsec, connection] = w.fake.callsTo('network', 'POST').slice(-3);
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
    expect(connection.body).toEqual({
      ipsec_site_connection: {
        ...peerBody(),
        peer_id: '198.51.100.7',
        vpnservice_id: gateway.id,
        ikepolicy_id: peer.ikepolicy_id,
        ipsecpolicy_id: peer.ipsecpolicy_id,
      },
    });
    expect(inOrg('ikepolicies').map((p) => p.id)).toContain(peer.ikepolicy_id);

    const shown = await api.get(`${gateways}/${gateway.id}`).expect(200);
    expectNoPsk(shown.body);
    expect(shown.body.data.peers.map((p: Peer) => p.id)).toEqual([peer.id]);
    const listed = await api.get(gateways).expect(200);
    expectNoPsk(listed.body);
    const inList = listed.body.data.find((g: { id: string }) => g.id === gateway.id);
    expect(inList.peers.map((p: Peer) => p.id)).toEqual([peer.id]);
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
    const [ike, ipsec] = w.fake.callsTo('network', 'POST').slice(-3);
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
    const peer = await createPeer(gateway.id);
    const changed = await api
      .patch(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`, {
        name: 'branch',
        psk: 'another-long-secret',
        mtu: 1400,
        peer_cidrs: ['192.168.20.0/24', '192.168.21.0/24'],
      })
      .expect(200);
    expectNoPsk(changed.body);
    expect(JSON.stringify(changed.body)).not.toContain('another-long-secret');
    expect(changed.body.data).toMatchObject({
      id: peer.id,
      name: 'branch',
      mtu: 1400,
      peer_cidrs: ['192.168.20.0/24', '192.168.21.0/24'],
      ikepolicy_id: peer.ikepolicy_id,
    });
    const sent = w.fake.callsTo('network', 'PUT').at(-1)!;
    expect(sent.path).toBe(`/v2.0/vpn/ipsec-site-connections/${peer.id}`);
    expect(sent.body).toEqual({
      ipsec_site_connection: {
        name: 'branch',
        psk: 'another-long-secret',
        mtu: 1400,
        peer_cidrs: ['192.168.20.0/24', '192.168.21.0/24'],
      },
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
    expect(w.fake.callsTo('network', 'PUT')).toHaveLength(puts);

    // A peer is reached through its own gateway only.
    const other = await createGateway('other');
    await api.patch(`${gateways}/${other.id}/vpn_peers/${peer.id}`, { name: 'x' }).expect(404);
    await api.del(`${gateways}/${other.id}/vpn_peers/${peer.id}`).expect(404);
    expect(w.fake.callsTo('network', 'PUT')).toHaveLength(puts);
  });

  it('deletes a peer with its policies (204)', async () => {
    const gateway = await createGateway('one-peer');
    const peer = await createPeer(gateway.id);
    await api.del(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`).expect(204);
    expect(
      w.fake
        .callsTo('network', 'DELETE')
        .slice(-3)
        .map((c) => c.path),
    ).toEqual([
      `/v2.0/vpn/ipsec-site-connections/${peer.id}`,
      `/v2.0/vpn/ikepolicies/${peer.ikepolicy_id}`,
      `/v2.0/vpn/ipsecpolicies/${peer.ipsecpolicy_id}`,
    ]);
    expect(inOrg('ikepolicies').map((p) => p.id)).not.toContain(peer.ikepolicy_id);
    await api.del(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`).expect(404);
    expect((await api.get(`${gateways}/${gateway.id}`).expect(200)).body.data.peers).toEqual([]);
  });
});
