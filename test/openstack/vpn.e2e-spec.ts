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

  it("creates a gateway (201) in the organization's own Keystone project: a router on the external network and a VPN service on it", async () => {
    const created = await api
      .post(gateways, { name: 'main', description: 'head office' })
      .expect(201);
    expect(created.body.metadata.organization_id).toBe(w.owner.organizationId);
    const gateway = created.body.data;
    expect(gateway).toMatchObject({
      name: 'main',
      description: 'head office',
      subnet_id: null,
      status: 'ACTIVE',
      peers: [],
    });
    expect(gateway.external_address).toMatch(/^203\.0\.113\.\d+$/);

    const keystoneId = vpn.orgProject();
    expect(w.fake.keystone.projects.get(keystoneId)!.name).toBe(
      `platform-org-${w.owner.organizationId}`,
    );
    const [router] = inOrg('routers');
    expect(gateway.router_id).toBe(router.id);
    expect(router.external_gateway_info).toMatchObject({
      network_id: FAKE_EXTERNAL_NETWORK.id,
      external_fixed_ips: [{ ip_address: gateway.external_address }],
    });
    const posts = w.fake.callsTo('network', 'POST').slice(-2);
    expect(posts.map((c) => [c.path, c.projectId])).toEqual([
      ['/v2.0/routers', keystoneId],
      ['/v2.0/vpn/vpnservices', keystoneId],
    ]);
    expect(posts[1].body).toEqual({
      vpnservice: { name: 'main', description: 'head office', router_id: router.id },
    });

    const listed = await api.get(gateways).expect(200);
    expect(listed.body.data.map((g: { id: string }) => g.id)).toEqual([gateway.id]);
    const shown = await api.get(`${gateways}/${gateway.id}`).expect(200);
    expect(shown.body.data).toMatchObject({ id: gateway.id, router_id: router.id, peers: [] });
    await api.get(`${gateways}/00000000-0000-4000-8000-000000000000`).expect(404);
  });

  it('validates a gateway before calling upstream; leaves no router behind when the VPN service fails', async () => {
    const before = w.fake.callsTo('network', 'POST').length;
    const noName = await api.post(gateways, {}).expect(422);
    expect(noName.body.code).toBe('validation_failed');
    expect(failedFields(noName.body)).toEqual(['name']);
    const network = await api
      .post(gateways, { name: 'x', external_network_id: 'public' })
      .expect(422);
    expect(failedFields(network.body)).toEqual(['external_network_id']);
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);

    const routers = inOrg('routers').length;
    w.fake.fail({ service: 'network', method: 'POST', path: /vpnservices/, status: 500 });
    const failed = await api.post(gateways, { name: 'broken' }).expect(502);
    expect(failed.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
    expect(inOrg('routers')).toHaveLength(routers);

    const missing = await api
      .post(gateways, { name: 'x', external_network_id: '00000000-0000-4000-8000-000000000000' })
      .expect(404);
    expect(missing.body.code).toBe('not_found');
    expect(inOrg('routers')).toHaveLength(routers);
  });

  it('deletes a gateway (204) with its peers, then its VPN service, then the router it made', async () => {
    const gateway = await createGateway('doomed');
    const peers = [await createPeer(gateway.id), await createPeer(gateway.id, { name: 'second' })];
    const deletesBefore = w.fake.callsTo('network', 'DELETE').length;
    await api.del(`${gateways}/${gateway.id}`).expect(204);
    const paths = w.fake
      .callsTo('network', 'DELETE')
      .slice(deletesBefore)
      .map((c) => c.path);
    expect(paths).toEqual([
      ...peers.flatMap((p) => [
        `/v2.0/vpn/ipsec-site-connections/${p.id}`,
        `/v2.0/vpn/ikepolicies/${p.ikepolicy_id}`,
        `/v2.0/vpn/ipsecpolicies/${p.ipsecpolicy_id}`,
      ]),
      `/v2.0/vpn/vpnservices/${gateway.id}`,
      `/v2.0/routers/${gateway.router_id}`,
    ]);
    expect(inOrg('routers').map((r) => r.id)).not.toContain(gateway.router_id);
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
