import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KeystoneProjects } from '@platform/openstack';
import { seedLoadBalancer, seedLoadBalancerStack, seedPool } from '@platform/testing';
import { seedMember } from '../support/factories.js';
import type { TestAccount } from '../support/identity.js';
import { bearer } from '../support/identity.js';
import { type CloudWorld, createCloudWorld } from './support.js';

describe('cloud load balancers (Octavia)', () => {
  let w: CloudWorld;
  let billing: TestAccount;
  let web: ReturnType<typeof seedLoadBalancerStack>;
  let api: ReturnType<typeof seedLoadBalancerStack>;
  let theirs: ReturnType<typeof seedLoadBalancerStack>;
  const get = (path: string, jwt = w.owner.jwt) => w.t.request().get(path).set(bearer(jwt));
  const at = (path: string, projectId = w.projectId) =>
    `${path}${path.includes('?') ? '&' : '?'}project_id=${projectId}`;
  const ids = (res: { body: { data: Array<{ id: string }> } }) =>
    res.body.data.map((item) => item.id).sort();
  const lbCalls = () => w.fake.callsTo('load-balancer');

  beforeAll(async () => {
    w = await createCloudWorld();
    billing = await seedMember(w.t, w.owner, 'billing@cloud.example', 'billing_manager');
    const projects = w.t.get(KeystoneProjects);
    const mine = await projects.idOf('project', w.projectId);
    web = seedLoadBalancerStack(w.fake.resources, mine, 'web');
    api = seedLoadBalancerStack(w.fake.resources, mine, 'api');
    theirs = seedLoadBalancerStack(
      w.fake.resources,
      await projects.idOf('project', w.otherProjectId),
      'staging',
    );
  });
  afterAll(async () => {
    await w?.close();
  });

  it("lists the project's load balancers and shows one as Octavia does", async () => {
    const listed = await get(at('/cloud/loadbalancers')).expect(200);
    expect(listed.body.metadata).toMatchObject({ project_id: w.projectId, count: 2 });
    expect(ids(listed)).toEqual([web.loadBalancer.id, api.loadBalancer.id].sort());
    expect(lbCalls().at(-1)).toMatchObject({
      method: 'GET',
      path: '/v2/lbaas/loadbalancers',
      projectId: w.keystoneProjectOf(w.projectId),
    });

    const shown = await get(at(`/cloud/loadbalancers/${web.loadBalancer.id}`)).expect(200);
    expect(shown.body.data).toMatchObject({
      id: web.loadBalancer.id,
      name: 'web',
      vip_address: '10.0.0.10',
      provider: 'amphora',
      provisioning_status: 'ACTIVE',
      operating_status: 'ONLINE',
      listeners: [{ id: web.listener.id }],
      pools: [{ id: web.pool.id }],
    });
    expect(lbCalls().at(-1)!.path).toBe(`/v2/lbaas/loadbalancers/${web.loadBalancer.id}`);
  });

  it('lists listeners and pools, all or of one load balancer (loadbalancer_id passed to Octavia)', async () => {
    const listeners = await get(at('/cloud/lb/listeners')).expect(200);
    expect(ids(listeners)).toEqual([web.listener.id, api.listener.id].sort());
    const webListeners = await get(
      at(`/cloud/lb/listeners?loadbalancer_id=${web.loadBalancer.id}`),
    ).expect(200);
    expect(webListeners.body.data).toEqual([
      expect.objectContaining({
        id: web.listener.id,
        name: 'web-http',
        protocol: 'HTTP',
        protocol_port: 80,
        default_pool_id: web.pool.id,
        loadbalancers: [{ id: web.loadBalancer.id }],
      }),
    ]);
    expect(webListeners.body.metadata.count).toBe(1);

    const pools = await get(at('/cloud/lb/pools')).expect(200);
    expect(ids(pools)).toEqual([web.pool.id, api.pool.id].sort());
    const apiPools = await get(at(`/cloud/lb/pools?loadbalancer_id=${api.loadBalancer.id}`)).expect(
      200,
    );
    expect(apiPools.body.data).toEqual([
      expect.objectContaining({
        id: api.pool.id,
        lb_algorithm: 'ROUND_ROBIN',
        healthmonitor_id: api.healthMonitor.id,
        members: api.members.map((m) => ({ id: m.id })),
      }),
    ]);
    // Another project's load balancer filters to nothing here.
    const none = await get(at(`/cloud/lb/pools?loadbalancer_id=${theirs.loadBalancer.id}`)).expect(
      200,
    );
    expect(none.body.data).toEqual([]);
  });

  it("lists a pool's members and the health monitors", async () => {
    const members = await get(at(`/cloud/lb/pools/${web.pool.id}/members`)).expect(200);
    expect(members.body.metadata.count).toBe(2);
    expect(
      members.body.data.map((m: { id: string; address: string; protocol_port: number }) => [
        m.id,
        m.address,
        m.protocol_port,
      ]),
    ).toEqual(web.members.map((m) => [m.id, m.address, 8080]));
    expect(members.body.data[0]).not.toHaveProperty('_pool_id');
    expect(lbCalls().at(-1)!.path).toBe(`/v2/lbaas/pools/${web.pool.id}/members`);
    const empty = seedPool(w.fake.resources, w.keystoneProjectOf(w.projectId)!, web.loadBalancer, {
      name: 'spare',
    });
    expect((await get(at(`/cloud/lb/pools/${empty.id}/members`)).expect(200)).body.data).toEqual(
      [],
    );

    const monitors = await get(at('/cloud/lb/health-monitors')).expect(200);
    expect(ids(monitors)).toEqual([web.healthMonitor.id, api.healthMonitor.id].sort());
    expect(
      monitors.body.data.find((m: { id: string }) => m.id === web.healthMonitor.id),
    ).toMatchObject({
      type: 'HTTP',
      delay: 5,
      timeout: 3,
      max_retries: 3,
      pools: [{ id: web.pool.id }],
    });
    expect(lbCalls().at(-1)!.path).toBe('/v2/lbaas/healthmonitors');
  });

  it("keeps projects apart: another project's load balancer and pool are 404 (Octavia answers them 403)", async () => {
    const lb = await get(at(`/cloud/loadbalancers/${theirs.loadBalancer.id}`)).expect(404);
    expect(lb.body.code).toBe('not_found');
    const members = await get(at(`/cloud/lb/pools/${theirs.pool.id}/members`)).expect(404);
    expect(members.body.code).toBe('not_found');
    for (const path of ['/cloud/loadbalancers', '/cloud/lb/listeners', '/cloud/lb/pools']) {
      const listed = await get(at(path)).expect(200);
      expect(JSON.stringify(listed.body.data)).not.toContain(theirs.loadBalancer.id);
    }
    const monitors = await get(at('/cloud/lb/health-monitors')).expect(200);
    expect(ids(monitors)).not.toContain(theirs.healthMonitor.id);
    // Unknown ids are Octavia's own 404.
    await get(at(`/cloud/loadbalancers/${randomUUID()}`)).expect(404);
    await get(at(`/cloud/lb/pools/${randomUUID()}/members`)).expect(404);
    // Another organization's member does not see the project at all.
    await get(at('/cloud/loadbalancers'), w.stranger.jwt).expect(404);
    await get(at('/cloud/loadbalancers', w.strangerProjectId)).expect(404);
  });

  it('answers malformed ids 404 and a malformed loadbalancer_id 422, without calling Octavia', async () => {
    const before = lbCalls().length;
    await get(at('/cloud/loadbalancers/not-a-uuid')).expect(404);
    await get(at('/cloud/lb/pools/not-a-uuid/members')).expect(404);
    for (const path of ['/cloud/lb/listeners', '/cloud/lb/pools']) {
      const res = await get(at(`${path}?loadbalancer_id=web`)).expect(422);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        details: { fields: [{ field: 'loadbalancer_id' }] },
      });
    }
    expect(lbCalls()).toHaveLength(before);
    const missing = await get('/cloud/loadbalancers').expect(422);
    expect(missing.body.details.fields).toEqual([expect.objectContaining({ field: 'project_id' })]);
  });

  it('Axis A: the network category: a viewer reads, a billing manager (no network:read) gets 403 on every route', async () => {
    const routes = [
      '/cloud/loadbalancers',
      `/cloud/loadbalancers/${web.loadBalancer.id}`,
      '/cloud/lb/listeners',
      '/cloud/lb/pools',
      `/cloud/lb/pools/${web.pool.id}/members`,
      '/cloud/lb/health-monitors',
    ];
    for (const path of routes) {
      await get(at(path), w.viewer.jwt).expect(200);
      await get(at(path), w.developer.jwt).expect(200);
      const refused = await get(at(path), billing.jwt).expect(403);
      expect(refused.body.code).toBe('forbidden');
    }
    await w.t.request().get(at('/cloud/loadbalancers')).expect(401);
  });

  it('reads need no openstack kind (load_balancer gates no create yet)', async () => {
    const bare = await w.t.get(KeystoneProjects).idOf('project', w.bareProjectId);
    const lb = seedLoadBalancer(w.fake.resources, bare, { name: 'bare' });
    const listed = await get(at('/cloud/loadbalancers', w.bareProjectId)).expect(200);
    expect(ids(listed)).toEqual([lb.id]);
  });

  it('rule 4 stays for lists: Octavia refusing the credentials is 502 provider_auth_failed, a failing Octavia 502 provider_unavailable', async () => {
    w.fake.fail({
      service: 'load-balancer',
      path: /^\/v2\/lbaas\/listeners$/,
      status: 403,
      body: {
        faultcode: 'Client',
        faultstring: 'Policy does not allow this request to be performed.',
        debuginfo: null,
      },
    });
    const refused = await get(at('/cloud/lb/listeners')).expect(502);
    expect(refused.body).toMatchObject({ code: 'provider_auth_failed', retryable: false });
    w.fake.fail({ service: 'load-balancer', status: 500, times: 3 });
    const failing = await get(at(`/cloud/loadbalancers/${web.loadBalancer.id}`)).expect(502);
    expect(failing.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
  });
});
