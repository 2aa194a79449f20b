import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FAKE_EXTERNAL_NETWORK, seedNeutronPort } from '@platform/testing';
import { auditRows, failedFields, requests } from './requests.js';
import { type CloudWorld, createCloudWorld } from './support.js';

describe('cloud networks, subnets and ports over Neutron', () => {
  let w: CloudWorld;
  let api: ReturnType<typeof requests>;
  const at = (path: string, projectId = w.projectId) =>
    `${path}${path.includes('?') ? '&' : '?'}project_id=${projectId}`;
  const createNetwork = async (name: string, projectId = w.projectId) =>
    (await api.post(at('/cloud/networks', projectId), { name }).expect(201)).body.data as {
      id: string;
    };
  const createSubnet = async (networkId: string, cidr: string, projectId = w.projectId) =>
    (
      await api
        .post(at('/cloud/subnets', projectId), { network_id: networkId, cidr, ip_version: 4 })
        .expect(201)
    ).body.data as { id: string };

  beforeAll(async () => {
    w = await createCloudWorld();
    api = requests(w);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('creates a network (201) from the fields alone, forwarded as {"network": {...}} without owner fields', async () => {
    const created = await api
      .post('/cloud/networks', {
        project_id: w.projectId,
        tenant_id: 'someone-else',
        name: 'backend',
        description: 'the app tier',
        mtu: 1400,
        port_security_enabled: true,
      })
      .expect(201);
    expect(created.body.metadata.project_id).toBe(w.projectId);
    expect(created.body.data).toMatchObject({
      name: 'backend',
      description: 'the app tier',
      mtu: 1400,
      status: 'ACTIVE',
      subnets: [],
      'router:external': false,
      project_id: w.keystoneProjectOf(w.projectId),
    });
    const sent = w.fake.callsTo('network', 'POST').at(-1)!;
    expect(sent.path).toBe('/v2.0/networks');
    expect(sent.projectId).toBe(w.keystoneProjectOf(w.projectId));
    expect(sent.body).toEqual({
      network: {
        name: 'backend',
        description: 'the app tier',
        mtu: 1400,
        port_security_enabled: true,
      },
    });

    const id = created.body.data.id as string;
    const shown = await api.get(at(`/cloud/networks/${id}`)).expect(200);
    expect(shown.body.data).toMatchObject({ id, name: 'backend' });
    // The list is the project's networks and the external one every project may use.
    const listed = await api.get(at('/cloud/networks')).expect(200);
    expect(listed.body.metadata.count).toBe(listed.body.data.length);
    expect(listed.body.data.map((n: { id: string }) => n.id)).toEqual(
      expect.arrayContaining([id, FAKE_EXTERNAL_NETWORK.id]),
    );
    expect(
      listed.body.data.find((n: { id: string }) => n.id === FAKE_EXTERNAL_NETWORK.id),
    ).toMatchObject({ 'router:external': true, name: 'public' });
  });

  it('validates a network before calling upstream (422 naming the field)', async () => {
    const before = w.fake.callsTo('network', 'POST').length;
    const mtu = await api.post(at('/cloud/networks'), { name: 'x', mtu: 20 }).expect(422);
    expect(mtu.body.code).toBe('validation_failed');
    expect(failedFields(mtu.body)).toEqual(['mtu']);
    const nullName = await api.post(at('/cloud/networks'), { name: null }).expect(422);
    expect(failedFields(nullName.body)).toEqual(['name']);
    const flag = await api.post(at('/cloud/networks'), { admin_state_up: 'yes' }).expect(422);
    expect(failedFields(flag.body)).toEqual(['admin_state_up']);
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);
  });

  it('creates a subnet (201) with its gateway and pool, lists and shows it', async () => {
    const network = await createNetwork('with-subnet');
    const created = await api
      .post(at('/cloud/subnets'), {
        network_id: network.id,
        cidr: '10.20.0.0/24',
        ip_version: 4,
        name: 'app',
        dns_nameservers: ['9.9.9.9'],
        host_routes: [{ destination: '192.168.0.0/16', nexthop: '10.20.0.254' }],
      })
      .expect(201);
    expect(created.body.data).toMatchObject({
      name: 'app',
      network_id: network.id,
      cidr: '10.20.0.0/24',
      ip_version: 4,
      gateway_ip: '10.20.0.1',
      enable_dhcp: true,
      allocation_pools: [{ start: '10.20.0.2', end: '10.20.0.254' }],
      dns_nameservers: ['9.9.9.9'],
    });
    const id = created.body.data.id as string;
    await api.get(at(`/cloud/subnets/${id}`)).expect(200);
    const listed = await api.get(at('/cloud/subnets')).expect(200);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toContain(id);
    const parent = await api.get(at(`/cloud/networks/${network.id}`)).expect(200);
    expect(parent.body.data.subnets).toEqual([id]);

    // No gateway at all: null is forwarded as such.
    const bare = await api
      .post(at('/cloud/subnets'), {
        network_id: network.id,
        cidr: '10.21.0.0/24',
        ip_version: 4,
        gateway_ip: null,
      })
      .expect(201);
    expect(bare.body.data.gateway_ip).toBeNull();
    const v6 = await api
      .post(at('/cloud/subnets'), { network_id: network.id, cidr: '2001:db8::/64', ip_version: 6 })
      .expect(201);
    expect(v6.body.data).toMatchObject({ gateway_ip: '2001:db8::1', ip_version: 6 });
  });

  it('validates a subnet before calling upstream: CIDR, ip_version, families, addresses', async () => {
    const network = await createNetwork('validated');
    const before = w.fake.callsTo('network', 'POST').length;
    const subnet = (body: Record<string, unknown>) =>
      api.post(at('/cloud/subnets'), {
        network_id: network.id,
        cidr: '10.30.0.0/24',
        ip_version: 4,
        ...body,
      });
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ cidr: '10.30.0.5/24' }, ['cidr']],
      [{ cidr: '10.30.0.0/33' }, ['cidr']],
      [{ cidr: 'ten' }, ['cidr']],
      [{ ip_version: 5 }, ['ip_version']],
      [{ ip_version: 6 }, ['cidr']],
      [{ network_id: 'nope' }, ['network_id']],
      [{ gateway_ip: '2001:db8::1' }, ['gateway_ip']],
      [{ dns_nameservers: ['dns.example'] }, ['dns_nameservers']],
      [{ allocation_pools: [{ start: '10.30.0.10' }] }, ['allocation_pools.0.end']],
      [{ ipv6_ra_mode: 'auto' }, ['ipv6_ra_mode']],
    ];
    for (const [body, fields] of cases) {
      const res = await subnet(body).expect(422);
      expect(res.body.code).toBe('validation_failed');
      expect(failedFields(res.body)).toEqual(fields);
    }
    const notNetwork = await subnet({ cidr: '10.30.0.5/24' }).expect(422);
    expect(notNetwork.body.details.fields[0].messages[0]).toContain('10.30.0.0/24');
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);
  });

  it("passes Neutron's refusals on as 422 upstream_rejected, and an unknown network as 404", async () => {
    const network = await createNetwork('overlapping');
    await createSubnet(network.id, '10.40.0.0/24');
    const overlap = await api
      .post(at('/cloud/subnets'), { network_id: network.id, cidr: '10.40.0.0/25', ip_version: 4 })
      .expect(422);
    expect(overlap.body).toMatchObject({
      code: 'upstream_rejected',
      details: { provider: 'openstack', upstream_status: 400 },
    });
    expect(overlap.body.details.message).toContain('overlaps with another subnet');
    const missing = await api
      .post(at('/cloud/subnets'), {
        network_id: '00000000-0000-4000-8000-000000000000',
        cidr: '10.41.0.0/24',
        ip_version: 4,
      })
      .expect(404);
    expect(missing.body.code).toBe('not_found');
  });

  it('answers 409 conflict while a network has subnets or ports, and deletes it once empty (204)', async () => {
    const network = await createNetwork('busy');
    const subnet = await createSubnet(network.id, '10.50.0.0/24');
    const busy = await api.del(at(`/cloud/networks/${network.id}`)).expect(409);
    expect(busy.body).toMatchObject({ code: 'conflict', details: { upstream_status: 409 } });
    expect(busy.body.details.message).toContain('subnets still in use');

    const port = seedNeutronPort(w.fake.resources, w.keystoneProjectOf(w.projectId)!, {
      network_id: network.id,
      device_id: '6f1c3a0e-8a53-4c1e-9d7a-0a1b2c3d4e5f',
    });
    const held = await api.del(at(`/cloud/subnets/${subnet.id}`)).expect(409);
    expect(held.body.code).toBe('conflict');
    w.fake.resources.collection(w.keystoneProjectOf(w.projectId)!, 'ports').delete(port.id);

    await api.del(at(`/cloud/subnets/${subnet.id}`)).expect(204);
    await api.get(at(`/cloud/subnets/${subnet.id}`)).expect(404);
    await api.del(at(`/cloud/networks/${network.id}`)).expect(204);
    await api.get(at(`/cloud/networks/${network.id}`)).expect(404);
  });

  it('lists and shows the ports of the project', async () => {
    const network = await createNetwork('ported');
    await createSubnet(network.id, '10.60.0.0/24');
    const port = seedNeutronPort(w.fake.resources, w.keystoneProjectOf(w.projectId)!, {
      network_id: network.id,
    });
    const listed = await api.get(at('/cloud/ports')).expect(200);
    expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(port.id);
    const shown = await api.get(at(`/cloud/ports/${port.id}`)).expect(200);
    expect(shown.body.data).toMatchObject({
      id: port.id,
      network_id: network.id,
      fixed_ips: [{ ip_address: '10.60.0.2' }],
    });
    expect(shown.body.data.mac_address).toMatch(/^fa:16:3e(:[0-9a-f]{2}){3}$/);
    await api.get(at(`/cloud/ports/${port.id}`, w.otherProjectId)).expect(404);
  });

  it('keeps tenants apart: another project answers 404 for the ids, another organization for the project', async () => {
    const network = await createNetwork('private');
    const subnet = await createSubnet(network.id, '10.70.0.0/24');
    for (const path of [`/cloud/networks/${network.id}`, `/cloud/subnets/${subnet.id}`]) {
      const other = await api.get(at(path, w.otherProjectId)).expect(404);
      expect(other.body.code).toBe('not_found');
      await api.del(at(path, w.otherProjectId)).expect(404);
    }
    // A subnet on another project's network: the network is not found there.
    await api
      .post(at('/cloud/subnets', w.otherProjectId), {
        network_id: network.id,
        cidr: '10.71.0.0/24',
        ip_version: 4,
      })
      .expect(404);
    const theirs = await api.get(at('/cloud/networks', w.otherProjectId)).expect(200);
    expect(theirs.body.data.map((n: { id: string }) => n.id)).toEqual([FAKE_EXTERNAL_NETWORK.id]);
    await api.get(at('/cloud/networks'), w.stranger.jwt).expect(404);
    await api.post(at('/cloud/networks'), { name: 'x' }, w.stranger.jwt).expect(404);
    await api.get('/cloud/networks').expect(422);
    await w.t.request().get(at('/cloud/networks')).expect(401);
  });

  it('Axis A: a viewer reads networks and subnets but neither creates nor deletes them', async () => {
    const network = await createNetwork('viewed');
    await api.get(at('/cloud/networks'), w.viewer.jwt).expect(200);
    await api.get(at(`/cloud/networks/${network.id}`), w.viewer.jwt).expect(200);
    await api.get(at('/cloud/subnets'), w.viewer.jwt).expect(200);
    await api.get(at('/cloud/ports'), w.viewer.jwt).expect(200);
    const before = w.fake.callsTo('network', 'POST').length;
    const create = await api.post(at('/cloud/networks'), { name: 'v' }, w.viewer.jwt).expect(403);
    expect(create.body.code).toBe('forbidden');
    const subnet = await api
      .post(
        at('/cloud/subnets'),
        { network_id: network.id, cidr: '10.80.0.0/24', ip_version: 4 },
        w.viewer.jwt,
      )
      .expect(403);
    expect(subnet.body.code).toBe('forbidden');
    const remove = await api.del(at(`/cloud/networks/${network.id}`), w.viewer.jwt).expect(403);
    expect(remove.body.code).toBe('forbidden');
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);
    const mine = await api
      .post(at('/cloud/networks'), { name: 'dev' }, w.developer.jwt)
      .expect(201);
    await api.del(at(`/cloud/networks/${mine.body.data.id}`), w.developer.jwt).expect(204);
  });

  it('Axis B: creating networks and subnets needs the network kind Available; reading does not', async () => {
    const refused = await api
      .post(at('/cloud/networks', w.bareProjectId), { name: 'x' })
      .expect(403);
    expect(refused.body.code).toBe('openstack_capability_not_enabled');
    const subnet = await api
      .post(at('/cloud/subnets', w.bareProjectId), {
        network_id: FAKE_EXTERNAL_NETWORK.id,
        cidr: '10.90.0.0/24',
        ip_version: 4,
      })
      .expect(403);
    expect(subnet.body.code).toBe('openstack_capability_not_enabled');
    await api.get(at('/cloud/networks', w.bareProjectId)).expect(200);
    await w.grant(w.bareProjectId, 'openstack', ['router', 'security_group']);
    await api.post(at('/cloud/networks', w.bareProjectId), { name: 'x' }).expect(403);
    await w.grant(w.bareProjectId, 'openstack', ['network']);
    await api.post(at('/cloud/networks', w.bareProjectId), { name: 'x' }).expect(201);
    await w.grant(w.bareProjectId, 'openstack', []);
  });

  it('audits creates and deletes as networks.* and subnets.*, once Neutron accepted them', async () => {
    const network = await createNetwork('audited');
    const subnet = await createSubnet(network.id, '10.99.0.0/24');
    await api.del(at(`/cloud/networks/${network.id}`)).expect(409);
    await api.del(at(`/cloud/subnets/${subnet.id}`)).expect(204);
    await api.del(at(`/cloud/networks/${network.id}`)).expect(204);
    const rows = (
      await auditRows(w, ['networks.create', 'networks.delete', 'subnets.create', 'subnets.delete'])
    ).filter((r) => [network.id, subnet.id].includes(r.target_id));
    expect(rows.map((r) => `${r.action} ${r.target_type}`).sort()).toEqual([
      'networks.create network',
      'networks.delete network',
      'subnets.create subnet',
      'subnets.delete subnet',
    ]);
    expect(
      rows.every((r) => r.project_id === w.projectId && r.actor_account_id === w.owner.accountId),
    ).toBe(true);
    expect(rows.find((r) => r.action === 'networks.create')!.details).toEqual({ name: 'audited' });
  });
});
