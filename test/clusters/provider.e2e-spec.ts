import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GARDEN_CALL_TIMEOUT_MS, GardenerKinds } from '@platform/clusters';
import type { TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount } from '../support/factories.js';
import { bearer, login, type TestAccount } from '../support/identity.js';
import { cloudProfile, FakeGarden } from './gardener-fixtures.js';
import { type ClusterWorld, clusterBody, createClusterWorld, PLATFORM } from './support.js';

describe('cloud profiles', () => {
  let w: ClusterWorld;
  const get = (path: string) => w.t.request().get(path).set(bearer(w.owner.jwt));

  beforeAll(async () => {
    w = await createClusterWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it("lists the garden's cloud profiles by name, with what a create may choose", async () => {
    w.garden.put(GardenerKinds.CloudProfile, cloudProfile('aws-eu', { type: 'aws' }));
    const listed = await get(`/k8s/cloudprofiles?project_id=${w.projectId}`).expect(200);
    expect(listed.body.metadata).toMatchObject({ count: 2, project_id: w.projectId });
    expect(listed.body.data.map((p: { name: string; type: string }) => [p.name, p.type])).toEqual([
      ['aws-eu', 'aws'],
      ['openstack-eu', 'openstack'],
    ]);
  });

  it('shows one profile: versions, regions with zones, machine types', async () => {
    const shown = await get(`/k8s/cloudprofiles/openstack-eu?project_id=${w.projectId}`).expect(
      200,
    );
    expect(shown.body.data).toEqual({
      name: 'openstack-eu',
      type: 'openstack',
      kubernetes_versions: [
        { version: '1.31.2', classification: 'supported', expiration_date: null },
        {
          version: '1.30.6',
          classification: 'deprecated',
          expiration_date: '2099-01-01T00:00:00Z',
        },
        {
          version: '1.29.9',
          classification: 'deprecated',
          expiration_date: '2020-01-01T00:00:00Z',
        },
      ],
      regions: [
        { name: 'eu-de-1', zones: ['eu-de-1a', 'eu-de-1b'] },
        { name: 'eu-nl-1', zones: ['eu-nl-1a'] },
      ],
      machine_types: [
        {
          name: 'm1.large',
          cpu: '4',
          memory: '16Gi',
          gpu: '0',
          architecture: 'amd64',
          usable: true,
        },
        {
          name: 'm1.xlarge',
          cpu: '8',
          memory: '32Gi',
          gpu: '0',
          architecture: 'amd64',
          usable: true,
        },
        { name: 'g1.gpu', cpu: '8', memory: '64Gi', gpu: '1', architecture: 'amd64', usable: true },
        {
          name: 'm0.legacy',
          cpu: '1',
          memory: '2Gi',
          gpu: null,
          architecture: 'amd64',
          usable: false,
        },
      ],
    });
  });

  it('answers 404 for an unknown profile, and for a value that cannot be a name without asking', async () => {
    expect(
      (await get(`/k8s/cloudprofiles/nowhere?project_id=${w.projectId}`).expect(404)).body.code,
    ).toBe('not_found');
    const before = w.garden.server.requests.length;
    await get(`/k8s/cloudprofiles/Not_A_Name?project_id=${w.projectId}`).expect(404);
    expect(w.garden.server.requests).toHaveLength(before);
  });

  it('counts calls to the garden per service on /metrics', async () => {
    const metrics = await w.t.request().get('/metrics').expect(200);
    expect(metrics.text).toMatch(
      /upstream_requests_total\{provider="garden",service="cloudprofiles",outcome="ok"\} \d+/,
    );
  });
});

/** A granted project of a new organization on `t`, and its admin. */
async function grantedProject(t: TestApp): Promise<{ owner: TestAccount; projectId: string }> {
  const owner = await seedAccount(t, 'owner@nogarden.example', 'No Garden Org');
  const projectId = (
    await t
      .request()
      .post(`/organizations/${owner.organizationId}/projects`)
      .set(bearer(owner.jwt))
      .send({ name: 'p' })
      .expect(201)
  ).body.data.id as string;
  const platformJwt = await login(t, PLATFORM.login, PLATFORM.password);
  await t
    .request()
    .put(`/organizations/${owner.organizationId}/projects/${projectId}/feature-grants/kubernetes`)
    .set(bearer(platformJwt))
    .send({ approved_configuration: { allowed_kinds: ['cluster'] } })
    .expect(200);
  return { owner, projectId };
}

/** Every /k8s route of a granted project, answering `status`. */
async function everyRoute(t: TestApp, status: number): Promise<Array<Record<string, unknown>>> {
  const { owner, projectId } = await grantedProject(t);
  const q = `project_id=${projectId}`;
  const id = '0b9c4a52-0000-4000-8000-000000000001';
  const request = () => t.request();
  const answers = [
    await request().get(`/k8s/clusters?${q}`).set(bearer(owner.jwt)).expect(status),
    await request().get(`/k8s/clusters/${id}?${q}`).set(bearer(owner.jwt)).expect(status),
    await request()
      .post(`/k8s/clusters?${q}`)
      .set(bearer(owner.jwt))
      .send(clusterBody())
      .expect(status),
    await request().delete(`/k8s/clusters/${id}?${q}`).set(bearer(owner.jwt)).expect(status),
    await request().get(`/k8s/cloudprofiles?${q}`).set(bearer(owner.jwt)).expect(status),
    await request()
      .get(`/k8s/cloudprofiles/openstack-eu?${q}`)
      .set(bearer(owner.jwt))
      .expect(status),
  ];
  return answers.map((answer) => answer.body as Record<string, unknown>);
}

describe('without GARDEN_KUBECONFIG', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createApiTestApp({ config: { platformAdmin: PLATFORM, gardenKubeconfig: null } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 503 provider_not_configured on every /k8s route', async () => {
    for (const body of await everyRoute(t, 503)) {
      expect(body).toMatchObject({
        code: 'provider_not_configured',
        retryable: false,
        source_service: 'cloud',
      });
      expect(body.message).toContain('GARDEN_KUBECONFIG');
    }
  });
});

describe('a garden cluster that cannot be reached', () => {
  let t: TestApp;
  let directory: string;
  beforeAll(async () => {
    const garden = await FakeGarden.start();
    directory = mkdtempSync(join(tmpdir(), 'garden-down-'));
    writeFileSync(join(directory, 'kubeconfig'), garden.server.kubeconfigYaml());
    await garden.stop();
    t = await createApiTestApp({
      config: { platformAdmin: PLATFORM, gardenKubeconfig: join(directory, 'kubeconfig') },
    });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers 502 provider_unavailable (retryable) on every /k8s route', async () => {
    for (const body of await everyRoute(t, 502)) {
      expect(body).toMatchObject({
        code: 'provider_unavailable',
        retryable: true,
        details: { provider: 'garden' },
      });
    }
  });
});

describe('a garden cluster that does not answer', () => {
  let t: TestApp;
  let silent: Server;
  let directory: string;
  beforeAll(async () => {
    // Accepts connections and requests, and never answers them.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const garden = await FakeGarden.start();
    const yaml = garden.server
      .kubeconfigYaml()
      .replace(garden.server.url, `http://127.0.0.1:${port}`);
    await garden.stop();
    directory = mkdtempSync(join(tmpdir(), 'garden-silent-'));
    writeFileSync(join(directory, 'kubeconfig'), yaml);
    t = await createApiTestApp({
      config: { platformAdmin: PLATFORM, gardenKubeconfig: join(directory, 'kubeconfig') },
      override: (builder) => builder.overrideProvider(GARDEN_CALL_TIMEOUT_MS).useValue(300),
    });
  });
  afterAll(async () => {
    await t?.close();
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  it('gives up after the call timeout (10 s in production, 0.3 s here): 502 provider_unavailable, retryable', async () => {
    const { owner, projectId } = await grantedProject(t);
    const started = Date.now();
    const res = await t
      .request()
      .get(`/k8s/clusters?project_id=${projectId}`)
      .set(bearer(owner.jwt))
      .expect(502);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
    expect(res.body.message).toMatch(/no answer within 300 ms/);
  });
});

describe('GARDEN_KUBECONFIG naming no usable file', () => {
  it('stops the API at start-up with a message naming the variable', async () => {
    await expect(
      createApiTestApp({ config: { gardenKubeconfig: '/nonexistent/garden/kubeconfig' } }),
    ).rejects.toThrow(
      /GARDEN_KUBECONFIG: \/nonexistent\/garden\/kubeconfig is not a usable kubeconfig/,
    );
  });
});
