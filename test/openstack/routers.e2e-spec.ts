import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FAKE_EXTERNAL_NETWORK, seedNeutronPort } from '@platform/testing';
import { auditRows, failedFields, requests } from './requests.js';
import { type CloudWorld, createCloudWorld } from './support.js';

describe('cloud routers, router interfaces and floating IPs over Neutron', () => {
  let w: CloudWorld;
  let api: ReturnType<typeof requests>;
  const at = (path: string, projectId = w.projectId) => `${path}?project_id=${projectId}`;
  const external = { network_id: FAKE_EXTERNAL_NETWORK.id };
  /** A network with one subnet of the CIDR. */
  const subnetOf = async (cidr: string, projectId = w.projectId) => {
    const network = (await api.post(at('/cloud/networks', projectId), { name: cidr }).expect(201))
      .body.data as { id: string };
    const subnet = (
      await api
        .post(at('/cloud/subnets', projectId), { network_id: network.id, cidr, ip_version: 4 })
        .expect(201)
    ).body.data as { id: string };
    return { networkId: network.id, subnetId: subnet.id };
  };
  const createRouter = async (body: Record<string, unknown> = {}) =>
    (await api.post(at('/cloud/routers'), { name: 'r', ...body }).expect(201)).body.data as {
      id: string;
    };

  beforeAll(async () => {
    w = await createCloudWorld();
    api = requests(w);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('creates a router (201) with a gateway on the external network, lists, shows and deletes it', async () => {
    const created = await api
      .post(at('/cloud/routers'), {
        name: 'edge',
        external_gateway_info: external,
        project_id: w.projectId,
      })
      .expect(201);
    expect(created.body.data).toMatchObject({
      name: 'edge',
      status: 'ACTIVE',
      admin_state_up: true,
      routes: [],
      external_gateway_info: {
        network_id: FAKE_EXTERNAL_NETWORK.id,
        enable_snat: true,
        external_fixed_ips: [{ subnet_id: FAKE_EXTERNAL_NETWORK.subnetId }],
      },
    });
    expect(created.body.data.external_gateway_info.external_fixed_ips[0].ip_address).toMatch(
      /^203\.0\.113\.\d+$/,
    );
    expect(w.fake.callsTo('network', 'POST').at(-1)!.body).toEqual({
      router: { name: 'edge', external_gateway_info: external },
    });
    const id = created.body.data.id as string;
    await api.get(at(`/cloud/routers/${id}`)).expect(200);
    const listed = await api.get(at('/cloud/routers')).expect(200);
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([id]);
    await api.del(at(`/cloud/routers/${id}`)).expect(204);
    await api.get(at(`/cloud/routers/${id}`)).expect(404);

    const plain = await createRouter({ name: 'internal' });
    expect(
      (await api.get(at(`/cloud/routers/${plain.id}`))).body.data.external_gateway_info,
    ).toBeNull();
  });

  it('validates routers before calling upstream, and passes a non-external gateway network on as upstream_rejected', async () => {
    const before = w.fake.callsTo('network', 'POST').length;
    const gateway = await api
      .post(at('/cloud/routers'), { external_gateway_info: { network_id: 'public' } })
      .expect(422);
    expect(failedFields(gateway.body)).toEqual(['external_gateway_info.network_id']);
    const flag = await api.post(at('/cloud/routers'), { admin_state_up: 1 }).expect(422);
    expect(failedFields(flag.body)).toEqual(['admin_state_up']);
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);

    const { networkId } = await subnetOf('10.1.0.0/24');
    const internal = await api
      .post(at('/cloud/routers'), { external_gateway_info: { network_id: networkId } })
      .expect(422);
    expect(internal.body.code).toBe('upstream_rejected');
    expect(internal.body.details.message).toContain('not an external network');
  });

  it('adds an interface on a subnet (201: a port at its gateway), refuses deleting what is in use (409), removes it (204)', async () => {
    const router = await createRouter({ external_gateway_info: external });
    const { networkId, subnetId } = await subnetOf('10.2.0.0/24');
    const added = await api
      .post(at(`/cloud/routers/${router.id}/interfaces`), { subnet_id: subnetId })
      .expect(201);
    expect(added.body.data).toMatchObject({
      id: router.id,
      subnet_id: subnetId,
      subnet_ids: [subnetId],
      network_id: networkId,
    });
    const sent = w.fake.callsTo('network', 'PUT').at(-1)!;
    expect(sent.path).toBe(`/v2.0/routers/${router.id}/add_router_interface`);
    expect(sent.body).toEqual({ subnet_id: subnetId });
    const portId = added.body.data.port_id as string;
    const port = await api.get(at(`/cloud/ports/${portId}`)).expect(200);
    expect(port.body.data).toMatchObject({
      device_owner: 'network:router_interface',
      device_id: router.id,
      fixed_ips: [{ subnet_id: subnetId, ip_address: '10.2.0.1' }],
    });

    const again = await api
      .post(at(`/cloud/routers/${router.id}/interfaces`), { subnet_id: subnetId })
      .expect(422);
    expect(again.body.code).toBe('upstream_rejected');
    for (const path of [
      `/cloud/routers/${router.id}`,
      `/cloud/networks/${networkId}`,
      `/cloud/subnets/${subnetId}`,
    ]) {
      const busy = await api.del(at(path)).expect(409);
      expect(busy.body.code).toBe('conflict');
    }

    await api.del(at(`/cloud/routers/${router.id}/interfaces/${portId}`)).expect(204);
    const removed = w.fake.callsTo('network', 'PUT').at(-1)!;
    expect(removed.path).toBe(`/v2.0/routers/${router.id}/remove_router_interface`);
    expect(removed.body).toEqual({ port_id: portId });
    await api.get(at(`/cloud/ports/${portId}`)).expect(404);
    await api.del(at(`/cloud/routers/${router.id}/interfaces/${portId}`)).expect(404);
    await api.del(at(`/cloud/routers/${router.id}`)).expect(204);
  });

  it('adds an interface on a free port; a port in use is a conflict; the body names exactly one target', async () => {
    const router = await createRouter();
    const { networkId } = await subnetOf('10.3.0.0/24');
    const keystoneId = w.keystoneProjectOf(w.projectId)!;
    const free = seedNeutronPort(w.fake.resources, keystoneId, { network_id: networkId });
    const added = await api
      .post(at(`/cloud/routers/${router.id}/interfaces`), { port_id: free.id })
      .expect(201);
    expect(added.body.data).toMatchObject({ port_id: free.id, id: router.id });
    const taken = seedNeutronPort(w.fake.resources, keystoneId, {
      network_id: networkId,
      device_id: '6f1c3a0e-8a53-4c1e-9d7a-0a1b2c3d4e5f',
    });
    const inUse = await api
      .post(at(`/cloud/routers/${router.id}/interfaces`), { port_id: taken.id })
      .expect(409);
    expect(inUse.body.code).toBe('conflict');

    const before = w.fake.callsTo('network', 'PUT').length;
    const both = await api
      .post(at(`/cloud/routers/${router.id}/interfaces`), { port_id: free.id, subnet_id: free.id })
      .expect(422);
    expect(failedFields(both.body)).toEqual(['subnet_id']);
    expect(both.body.details.fields[0].messages).toEqual(['give subnet_id or port_id, not both']);
    const neither = await api.post(at(`/cloud/routers/${router.id}/interfaces`), {}).expect(422);
    expect(neither.body.details.fields[0].messages).toEqual(['subnet_id or port_id is required']);
    const malformed = await api
      .post(at(`/cloud/routers/${router.id}/interfaces`), { port_id: 'eth0' })
      .expect(422);
    expect(failedFields(malformed.body)).toEqual(['port_id']);
    expect(w.fake.callsTo('network', 'PUT')).toHaveLength(before);
  });

  it('changes a router with PATCH (forwarded to PUT): name, static routes, gateway removal', async () => {
    const router = await createRouter({ external_gateway_info: external });
    const { subnetId } = await subnetOf('10.4.0.0/24');
    await api
      .post(at(`/cloud/routers/${router.id}/interfaces`), { subnet_id: subnetId })
      .expect(201);
    const routes = [{ destination: '172.16.0.0/12', nexthop: '10.4.0.254' }];
    const changed = await api
      .patch(at(`/cloud/routers/${router.id}`), { name: 'renamed', routes })
      .expect(200);
    expect(changed.body.data).toMatchObject({ id: router.id, name: 'renamed', routes });
    const sent = w.fake.callsTo('network', 'PUT').at(-1)!;
    expect(sent.path).toBe(`/v2.0/routers/${router.id}`);
    expect(sent.body).toEqual({ router: { name: 'renamed', routes } });

    const unreachable = await api
      .patch(at(`/cloud/routers/${router.id}`), {
        routes: [{ destination: '172.16.0.0/12', nexthop: '192.0.2.1' }],
      })
      .expect(422);
    expect(unreachable.body.code).toBe('upstream_rejected');
    const invalid = await api
      .patch(at(`/cloud/routers/${router.id}`), {
        routes: [{ destination: '172.16.0.0', nexthop: 'x' }],
      })
      .expect(422);
    expect(failedFields(invalid.body)).toEqual(['routes.0.destination', 'routes.0.nexthop']);

    const ungated = await api
      .patch(at(`/cloud/routers/${router.id}`), { external_gateway_info: null })
      .expect(200);
    expect(ungated.body.data.external_gateway_info).toBeNull();
    await api.patch(at(`/cloud/routers/${router.id}`, w.otherProjectId), { name: 'x' }).expect(404);
  });

  it('allocates floating IPs (201) from the external network, associates one through a router, releases them (204)', async () => {
    const created = await api
      .post(at('/cloud/floating-ips'), {
        floating_network_id: FAKE_EXTERNAL_NETWORK.id,
        description: 'spare',
      })
      .expect(201);
    expect(created.body.data).toMatchObject({
      floating_network_id: FAKE_EXTERNAL_NETWORK.id,
      status: 'DOWN',
      port_id: null,
      router_id: null,
      description: 'spare',
    });
    expect(created.body.data.floating_ip_address).toMatch(/^203\.0\.113\.\d+$/);

    const { networkId, subnetId } = await subnetOf('10.5.0.0/24');
    const port = seedNeutronPort(w.fake.resources, w.keystoneProjectOf(w.projectId)!, {
      network_id: networkId,
      device_id: '7e2d4b1f-9b64-4d2f-8e8b-1b2c3d4e5f60',
    });
    const body = { floating_network_id: FAKE_EXTERNAL_NETWORK.id, port_id: port.id };
    // No router joins the port's subnet to the external network yet.
    const unreachable = await api.post(at('/cloud/floating-ips'), body).expect(404);
    expect(unreachable.body.code).toBe('not_found');
    const router = await createRouter({ external_gateway_info: external });
    const iface = await api
      .post(at(`/cloud/routers/${router.id}/interfaces`), { subnet_id: subnetId })
      .expect(201);
    const associated = await api.post(at('/cloud/floating-ips'), body).expect(201);
    expect(associated.body.data).toMatchObject({
      status: 'ACTIVE',
      port_id: port.id,
      fixed_ip_address: '10.5.0.2',
      router_id: router.id,
    });
    // The interface and the gateway are what the floating IP needs.
    await api
      .del(at(`/cloud/routers/${router.id}/interfaces/${iface.body.data.port_id}`))
      .expect(409);
    await api.patch(at(`/cloud/routers/${router.id}`), { external_gateway_info: null }).expect(409);

    const listed = await api.get(at('/cloud/floating-ips')).expect(200);
    expect(listed.body.data.map((f: { id: string }) => f.id).sort()).toEqual(
      [created.body.data.id, associated.body.data.id].sort(),
    );
    const id = associated.body.data.id as string;
    await api.get(at(`/cloud/floating-ips/${id}`)).expect(200);
    await api.get(at(`/cloud/floating-ips/${id}`, w.otherProjectId)).expect(404);
    await api.del(at(`/cloud/floating-ips/${id}`, w.otherProjectId)).expect(404);
    await api.del(at(`/cloud/floating-ips/${id}`)).expect(204);
    await api.get(at(`/cloud/floating-ips/${id}`)).expect(404);
    await api
      .del(at(`/cloud/routers/${router.id}/interfaces/${iface.body.data.port_id}`))
      .expect(204);
  });

  it('validates floating IPs before calling upstream; a network that is not external is upstream_rejected', async () => {
    const before = w.fake.callsTo('network', 'POST').length;
    const missing = await api.post(at('/cloud/floating-ips'), {}).expect(422);
    expect(failedFields(missing.body)).toEqual(['floating_network_id']);
    const fixed = await api
      .post(at('/cloud/floating-ips'), {
        floating_network_id: FAKE_EXTERNAL_NETWORK.id,
        fixed_ip_address: '10.0.0.5',
      })
      .expect(422);
    expect(failedFields(fixed.body)).toEqual(['fixed_ip_address']);
    expect(w.fake.callsTo('network', 'POST')).toHaveLength(before);
    const { networkId } = await subnetOf('10.6.0.0/24');
    const internal = await api
      .post(at('/cloud/floating-ips'), { floating_network_id: networkId })
      .expect(422);
    expect(internal.body.details.message).toContain('not a valid external network');
  });

  it('Axis A and B: a viewer reads only; routers and interfaces need the router kind, floating IPs their own', async () => {
    const router = await createRouter();
    await api.get(at('/cloud/routers'), w.viewer.jwt).expect(200);
    await api.get(at('/cloud/floating-ips'), w.viewer.jwt).expect(200);
    for (const res of [
      await api.post(at('/cloud/routers'), {}, w.viewer.jwt),
      await api.patch(at(`/cloud/routers/${router.id}`), { name: 'v' }, w.viewer.jwt),
      await api.del(at(`/cloud/routers/${router.id}`), w.viewer.jwt),
      await api.post(
        at('/cloud/floating-ips'),
        { floating_network_id: FAKE_EXTERNAL_NETWORK.id },
        w.viewer.jwt,
      ),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
    const bare = (path: string, body: object) =>
      api.post(at(path, w.bareProjectId), body).expect(403);
    await w.grant(w.bareProjectId, 'openstack', ['network', 'floating_ip']);
    for (const res of [
      await bare('/cloud/routers', {}),
      await bare(`/cloud/routers/${router.id}/interfaces`, { subnet_id: router.id }),
    ]) {
      expect(res.body.code).toBe('openstack_capability_not_enabled');
    }
    await w.grant(w.bareProjectId, 'openstack', ['network', 'router']);
    const fip = await bare('/cloud/floating-ips', {
      floating_network_id: FAKE_EXTERNAL_NETWORK.id,
    });
    expect(fip.body.code).toBe('openstack_capability_not_enabled');
    await api.post(at('/cloud/routers', w.bareProjectId), {}).expect(201);
  });

  it('audits routers, interfaces and floating IPs', async () => {
    const router = await createRouter({ external_gateway_info: external });
    const { subnetId } = await subnetOf('10.7.0.0/24');
    const iface = await api
      .post(at(`/cloud/routers/${router.id}/interfaces`), { subnet_id: subnetId })
      .expect(201);
    const portId = iface.body.data.port_id as string;
    await api.patch(at(`/cloud/routers/${router.id}`), { name: 'audited' }).expect(200);
    await api.del(at(`/cloud/routers/${router.id}/interfaces/${portId}`)).expect(204);
    await api.del(at(`/cloud/routers/${router.id}`)).expect(204);
    const fip = await api
      .post(at('/cloud/floating-ips'), { floating_network_id: FAKE_EXTERNAL_NETWORK.id })
      .expect(201);
    await api.del(at(`/cloud/floating-ips/${fip.body.data.id}`)).expect(204);
    const rows = (
      await auditRows(w, [
        'routers.create',
        'routers.update',
        'routers.delete',
        'router_interfaces.create',
        'router_interfaces.delete',
        'floating_ips.create',
        'floating_ips.delete',
      ])
    ).filter((r) => [router.id, portId, fip.body.data.id].includes(r.target_id));
    expect(rows.map((r) => `${r.action} ${r.target_type}`).sort()).toEqual([
      'floating_ips.create floating_ip',
      'floating_ips.delete floating_ip',
      'router_interfaces.create router_interface',
      'router_interfaces.delete router_interface',
      'routers.create router',
      'routers.delete router',
      'routers.update router',
    ]);
    expect(rows.find((r) => r.action === 'router_interfaces.create')!.details).toEqual({
      router_id: router.id,
      subnet_id: subnetId,
    });
    expect(rows.every((r) => r.project_id === w.projectId)).toBe(true);
  });
});
