import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FAKE_EXTERNAL_NETWORK } from '@platform/testing';
import { DataSource } from 'typeorm';
import { seedAccount } from '../support/factories.js';
import { auditRows, failedFields } from './requests.js';
import { type CloudWorld, createCloudWorld } from './support.js';
import { PSK, peerBody, vpnOf } from './vpn-support.js';

describe('VPN gateways of an organization over Neutron VPNaaS', () => {
  let w: CloudWorld;
  let vpn: ReturnType<typeof vpnOf>;
  let api: ReturnType<typeof vpnOf>['api'];
  let gateways: string;
  const inOrg = (collection: string) => vpn.inOrg(collection);
  const createGateway = (name?: string, extra?: Record<string, unknown>) =>
    vpn.createGateway(name, extra);
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

  it("creates a gateway (201) in the organization's own Keystone project: a network and subnet for its local side, a router on the external network with the subnet's interface, and a VPN service without a subnet", async () => {
    const callsBefore = w.fake.calls.length;
    const created = await api
      .post(gateways, { name: 'main', description: 'head office' })
      .expect(201);
    expect(created.body.metadata.organization_id).toBe(w.owner.organizationId);
    const gateway = created.body.data;
    const keystoneId = vpn.orgProject();
    expect(w.fake.keystone.projects.get(keystoneId)!.name).toBe(
      `platform-org-${w.owner.organizationId}`,
    );
    const [network] = inOrg('networks');
    const [subnet] = inOrg('subnets');
    const [router] = inOrg('routers');
    expect(gateway).toMatchObject({
      name: 'main',
      description: 'head office',
      subnet_id: null,
      status: 'ACTIVE',
      router_id: router.id,
      local_cidr: '10.250.0.0/24',
      local_subnet_id: subnet.id,
      peers: [],
    });
    expect(gateway.external_address).toMatch(/^203\.0\.113\.\d+$/);
    expect(router.external_gateway_info).toMatchObject({
      network_id: FAKE_EXTERNAL_NETWORK.id,
      external_fixed_ips: [{ ip_address: gateway.external_address }],
    });
    expect(subnet).toMatchObject({
      network_id: network.id,
      name: 'vpn-main',
      cidr: '10.250.0.0/24',
      ip_version: 4,
      gateway_ip: '10.250.0.1',
    });
    expect(network.name).toBe('vpn-main');
    expect(inOrg('ports')).toEqual([
      expect.objectContaining({
        device_owner: 'network:router_interface',
        device_id: router.id,
        fixed_ips: [{ subnet_id: subnet.id, ip_address: '10.250.0.1' }],
      }),
    ]);

    const sent = changesSince(callsBefore);
    expect(sent.map((c) => [c.method, c.path, c.projectId])).toEqual([
      ['POST', '/v2.0/networks', keystoneId],
      ['POST', '/v2.0/subnets', keystoneId],
      ['POST', '/v2.0/routers', keystoneId],
      ['PUT', `/v2.0/routers/${String(router.id)}/add_router_interface`, keystoneId],
      ['POST', '/v2.0/vpn/vpnservices', keystoneId],
    ]);
    expect(sent[0].body).toEqual({
      network: {
        name: 'vpn-main',
        description: 'The local side of a VPN gateway, deleted with it',
      },
    });
    expect(sent[1].body).toEqual({
      subnet: {
        network_id: network.id,
        name: 'vpn-main',
        description: 'The local side of a VPN gateway, deleted with it',
        cidr: '10.250.0.0/24',
        ip_version: 4,
      },
    });
    expect(sent[3].body).toEqual({ subnet_id: subnet.id });
    expect(sent[4].body).toEqual({
      vpnservice: { name: 'main', description: 'head office', router_id: router.id },
    });

    const listed = await api.get(gateways).expect(200);
    expect(listed.body.data).toEqual([gateway]);
    const shown = await api.get(`${gateways}/${gateway.id}`).expect(200);
    expect(shown.body.data).toEqual(gateway);
    await api.get(`${gateways}/00000000-0000-4000-8000-000000000000`).expect(404);
  });

  it("takes the local side's network from local_cidr: an IPv4 network address of prefix /16 to /29, checked before calling upstream", async () => {
    const gateway = await createGateway('branch', { local_cidr: '172.16.8.0/29' });
    expect(gateway.local_cidr).toBe('172.16.8.0/29');
    expect(inOrg('subnets').find((s) => s.id === gateway.local_subnet_id)!.cidr).toBe(
      '172.16.8.0/29',
    );
    const wide = await createGateway('wide', { local_cidr: '10.128.0.0/16' });
    expect(wide.local_cidr).toBe('10.128.0.0/16');

    const before = w.fake.callsTo('network', 'POST').length;
    for (const [localCidr, message] of [
      [
        '10.1.2.3/24',
        'local_cidr 10.1.2.3/24 is not a network address; the network is 10.1.2.0/24',
      ],
      ['10.1.2.0/30', 'local_cidr must be an IPv4 network of prefix /16 to /29'],
      ['10.0.0.0/15', 'local_cidr must be an IPv4 network of prefix /16 to /29'],
      ['2001:db8::/64', 'local_cidr must be an IPv4 network of prefix /16 to /29'],
      ['office', 'local_cidr must be a CIDR such as 10.0.0.0/24 or 2001:db8::/64'],
      [null, 'local_cidr must be a CIDR such as 10.0.0.0/24 or 2001:db8::/64'],
    ]) {
      const res = await api.post(gateways, { name: 'x', local_cidr: localCidr }).expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(failedFields(res.body)).toEqual(['local_cidr']);
      expect(JSON.stringify(res.body)).toContain(message);
    }
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);
  });

  it('validates a gateway before calling upstream; a failing step undoes what was made, last first, and answers the original failure', async () => {
    const before = w.fake.callsTo('network', 'POST').length;
    const noName = await api.post(gateways, {}).expect(422);
    expect(noName.body.code).toBe('validation_failed');
    expect(failedFields(noName.body)).toEqual(['name']);
    const network = await api
      .post(gateways, { name: 'x', external_network_id: 'public' })
      .expect(422);
    expect(failedFields(network.body)).toEqual(['external_network_id']);
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);

    const state = vpn.orgState();
    let callsBefore = w.fake.calls.length;
    const changes = () => changesSince(callsBefore).map((c) => `${c.method} ${c.path}`);
    w.fake.fail({ service: 'network', method: 'POST', path: /vpnservices/, status: 500 });
    const failed = await api.post(gateways, { name: 'broken' }).expect(502);
    expect(failed.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
    const routerId = changes()
      .find((c) => c.endsWith('/add_router_interface'))!
      .split('/')[3];
    expect(changes()).toEqual([
      'POST /v2.0/networks',
      'POST /v2.0/subnets',
      'POST /v2.0/routers',
      `PUT /v2.0/routers/${routerId}/add_router_interface`,
      'POST /v2.0/vpn/vpnservices',
      `PUT /v2.0/routers/${routerId}/remove_router_interface`,
      `DELETE /v2.0/routers/${routerId}`,
      expect.stringMatching(/^DELETE \/v2\.0\/subnets\//),
      expect.stringMatching(/^DELETE \/v2\.0\/networks\//),
    ]);
    expect(vpn.orgState()).toEqual(state);

    // A refused router (an unknown external network) undoes the subnet and the network.
    callsBefore = w.fake.calls.length;
    const missing = await api
      .post(gateways, { name: 'x', external_network_id: '00000000-0000-4000-8000-000000000000' })
      .expect(404);
    expect(missing.body.code).toBe('not_found');
    expect(changes().map((c) => c.replace(/[0-9a-f-]{36}/g, ':id'))).toEqual([
      'POST /v2.0/networks',
      'POST /v2.0/subnets',
      'POST /v2.0/routers',
      'DELETE /v2.0/subnets/:id',
      'DELETE /v2.0/networks/:id',
    ]);
    expect(vpn.orgState()).toEqual(state);

    // Neutron's refusal of the subnet answers as rule 4 has it; the network goes again.
    w.fake.fail({
      service: 'network',
      method: 'POST',
      path: /subnets/,
      status: 409,
      body: { NeutronError: { type: 'OverQuota', message: 'Quota exceeded', detail: '' } },
    });
    const quota = await api.post(gateways, { name: 'full' }).expect(409);
    expect(quota.body).toMatchObject({ code: 'conflict', details: { message: 'Quota exceeded' } });
    expect(vpn.orgState()).toEqual(state);
  });

  it('deletes a gateway (204): its peers, the VPN service, the interface, the router, the subnet and the network, in that order', async () => {
    const state = vpn.orgState();
    const gateway = await createGateway('doomed');
    const peers = [await createPeer(gateway.id), await createPeer(gateway.id, { name: 'second' })];
    const [subnet] = inOrg('subnets').filter((s) => s.id === gateway.local_subnet_id);
    const callsBefore = w.fake.calls.length;
    await api.del(`${gateways}/${gateway.id}`).expect(204);
    const paths = changesSince(callsBefore).map((c) => `${c.method} ${c.path}`);
    expect(paths).toEqual([
      ...peers.flatMap((p) => [
        `DELETE /v2.0/vpn/ipsec-site-connections/${p.id}`,
        `DELETE /v2.0/vpn/endpoint-groups/${p.local_ep_group_id}`,
        `DELETE /v2.0/vpn/endpoint-groups/${p.peer_ep_group_id}`,
        `DELETE /v2.0/vpn/ikepolicies/${p.ikepolicy_id}`,
        `DELETE /v2.0/vpn/ipsecpolicies/${p.ipsecpolicy_id}`,
      ]),
      `DELETE /v2.0/vpn/vpnservices/${gateway.id}`,
      `PUT /v2.0/routers/${gateway.router_id}/remove_router_interface`,
      `DELETE /v2.0/routers/${gateway.router_id}`,
      `DELETE /v2.0/subnets/${String(subnet.id)}`,
      `DELETE /v2.0/networks/${String(subnet.network_id)}`,
    ]);
    expect(vpn.orgState()).toEqual(state);
    await api.get(`${gateways}/${gateway.id}`).expect(404);
    await api.del(`${gateways}/${gateway.id}`).expect(404);
    const rows = (await auditRows(w, ['vpn_gateways.delete', 'vpn_peers.delete'])).filter((r) =>
      [gateway.id, ...peers.map((p) => p.id)].includes(r.target_id),
    );
    expect(rows.map((r) => r.action).sort()).toEqual([
      'vpn_gateways.delete',
      'vpn_peers.delete',
      'vpn_peers.delete',
    ]);
    expect(rows.find((r) => r.action === 'vpn_gateways.delete')!.details).toEqual({
      router_id: gateway.router_id,
      local_subnet_id: subnet.id,
    });
  });

  it("answers Neutron's 409 as conflict", async () => {
    const gateway = await createGateway('stuck');
    w.fake.fail({
      service: 'network',
      method: 'DELETE',
      path: /vpnservices/,
      status: 409,
      body: { NeutronError: { type: 'VPNServiceInUse', message: 'VPNService in use', detail: '' } },
    });
    const refused = await api.del(`${gateways}/${gateway.id}`).expect(409);
    expect(refused.body).toMatchObject({
      code: 'conflict',
      details: { message: 'VPNService in use' },
    });
    await api.get(`${gateways}/${gateway.id}`).expect(200);
  });

  it('Axis A only: a viewer reads, only members with vpn levels change; other organizations see nothing; no capability is asked', async () => {
    const gateway = await createGateway('guarded');
    const peer = await createPeer(gateway.id);
    await api.get(gateways, w.viewer.jwt).expect(200);
    await api.get(`${gateways}/${gateway.id}`, w.viewer.jwt).expect(200);
    for (const res of [
      await api.post(gateways, { name: 'v' }, w.viewer.jwt),
      await api.del(`${gateways}/${gateway.id}`, w.viewer.jwt),
      await api.post(`${gateways}/${gateway.id}/vpn_peers`, peerBody(), w.viewer.jwt),
      await api.patch(
        `${gateways}/${gateway.id}/vpn_peers/${peer.id}`,
        { name: 'v' },
        w.viewer.jwt,
      ),
      await api.del(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`, w.viewer.jwt),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
    const dev = await api.post(gateways, { name: 'dev' }, w.developer.jwt).expect(201);
    await api.del(`${gateways}/${dev.body.data.id}`, w.developer.jwt).expect(204);

    for (const res of [
      await api.get(gateways, w.stranger.jwt),
      await api.get(`${gateways}/${gateway.id}`, w.stranger.jwt),
      await api.post(gateways, { name: 's' }, w.stranger.jwt),
      await api.patch(
        `${gateways}/${gateway.id}/vpn_peers/${peer.id}`,
        { name: 's' },
        w.stranger.jwt,
      ),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    // The stranger's own organization has its own Keystone project: our gateway is not there.
    const theirs = `/organizations/${w.stranger.organizationId}/vpn_gateways`;
    expect((await api.get(theirs, w.stranger.jwt).expect(200)).body.data).toEqual([]);
    await api.get(`${theirs}/${gateway.id}`, w.stranger.jwt).expect(404);
    // An organization without any granted feature still has VPN (Axis A only).
    const fresh = await seedAccount(w.t, 'vpn-only@cloud.example', 'VPN Only');
    await api
      .post(`/organizations/${fresh.organizationId}/vpn_gateways`, { name: 'x' }, fresh.jwt)
      .expect(201);
    await w.t.request().get(gateways).expect(401);
  });

  it('audits gateways and peers without ever recording a key', async () => {
    const gateway = await createGateway('audited');
    const peer = await createPeer(gateway.id);
    await api
      .patch(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`, { psk: 'rotated-secret-key' })
      .expect(200);
    await api.del(`${gateways}/${gateway.id}/vpn_peers/${peer.id}`).expect(204);
    const rows = (
      await auditRows(w, [
        'vpn_gateways.create',
        'vpn_peers.create',
        'vpn_peers.update',
        'vpn_peers.delete',
      ])
    ).filter((r) => [gateway.id, peer.id].includes(r.target_id));
    expect(rows.map((r) => `${r.action} ${r.target_type}`).sort()).toEqual([
      'vpn_gateways.create vpn_gateway',
      'vpn_peers.create vpn_peer',
      'vpn_peers.delete vpn_peer',
      'vpn_peers.update vpn_peer',
    ]);
    expect(rows.find((r) => r.action === 'vpn_peers.update')!.details).toEqual({
      gateway_id: gateway.id,
      fields: ['psk'],
    });
    expect(
      rows.every((r) => r.organization_id === w.owner.organizationId && r.project_id === null),
    ).toBe(true);
    const leaked: unknown[] = await w.t
      .get(DataSource)
      .query(`SELECT id FROM audit_log WHERE details::text LIKE ANY($1)`, [
        [PSK, 'another-long-secret', 'rotated-secret-key'].map((key) => `%${key}%`),
      ]);
    expect(leaked).toEqual([]);
  });
});
