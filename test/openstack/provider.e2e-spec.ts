import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeOpenStack, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount } from '../support/factories.js';
import { bearer, type TestAccount } from '../support/identity.js';
import { type CloudWorld, createCloudApp, createCloudWorld } from './support.js';

/** Keystone tokens and projects, the catalog, and what the platform does when the cloud fails. */
describe('the OpenStack provider', () => {
  let w: CloudWorld;
  const servers = (projectId: string, jwt = w.owner.jwt) =>
    w.t.request().get(`/cloud/servers?project_id=${projectId}`).set(bearer(jwt));
  const newProject = async (name: string) => {
    const id = (
      await w.t
        .request()
        .post(`/organizations/${w.owner.organizationId}/projects`)
        .set(bearer(w.owner.jwt))
        .send({ name })
        .expect(201)
    ).body.data.id as string;
    return id;
  };
  const authsFor = (projectId: string) =>
    w.fake.keystone.projectAuths.get(w.keystoneProjectOf(projectId) ?? '') ?? 0;

  beforeAll(async () => {
    w = await createCloudWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('a burst of 50 first requests makes one Keystone project, one role assignment and one project token', async () => {
    const projectId = await newProject('burst');
    const projectsBefore = w.fake.keystone.projectsCreated;
    const answers = await Promise.all(Array.from({ length: 50 }, () => servers(projectId)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(w.fake.keystone.projectsCreated - projectsBefore).toBe(1);
    expect(authsFor(projectId)).toBe(1);
    const keystoneId = w.keystoneProjectOf(projectId)!;
    expect(
      w.fake
        .callsTo('identity', 'PUT')
        .filter((c) => c.path.startsWith(`/projects/${keystoneId}/`)),
    ).toHaveLength(1);
    const rows: Array<{ keystone_project_id: string; keystone_project_name: string }> = await w.t
      .get(DataSource)
      .query(`SELECT * FROM openstack_project WHERE tenant_kind = 'project' AND tenant_id = $1`, [
        projectId,
      ]);
    expect(rows).toEqual([
      expect.objectContaining({
        keystone_project_id: keystoneId,
        keystone_project_name: `platform-${projectId}`,
      }),
    ]);
  });

  it('two API replicas provisioning the same project at once make one Keystone project', async () => {
    const replica = await createCloudApp(w.fake, { shareWith: w.t });
    try {
      const projectId = await newProject('two-replicas');
      const before = w.fake.keystone.projectsCreated;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? replica : w.t)
            .request()
            .get(`/cloud/servers?project_id=${projectId}`)
            .set(bearer(w.owner.jwt)),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(w.fake.keystone.projectsCreated - before).toBe(1);
    } finally {
      await replica.close();
    }
  });

  it('adopts a Keystone project of the right name that an interrupted provisioning left behind', async () => {
    const projectId = await newProject('left-behind');
    // Created upstream, but the platform never stored it (it stopped before its commit).
    const domainToken = w.fake.keystone.authenticate(
      {
        auth: {
          identity: {
            methods: ['password'],
            password: { user: { ...w.fake.keystone.user, domain: { name: 'Default' } } },
          },
          scope: { domain: { name: 'Default' } },
        },
      },
      () => [],
    );
    expect(domainToken.status).toBe(201);
    const left = w.fake.keystone.admin('POST', '/projects', new URLSearchParams(), {
      project: { name: `platform-${projectId}`, domain_id: 'default' },
    });
    const leftId = (left.body as { project: { id: string } }).project.id;
    const before = w.fake.keystone.projectsCreated;
    await servers(projectId).expect(200);
    expect(w.fake.keystone.projectsCreated).toBe(before);
    expect(w.keystoneProjectOf(projectId)).toBe(leftId);
    expect(authsFor(projectId)).toBe(1);
  });

  it('reuses a project token until 5 minutes before it expires, then gets a new one', async () => {
    const projectId = await newProject('token-life');
    await servers(projectId).expect(200);
    expect(authsFor(projectId)).toBe(1);
    w.t.clock.advance({ minutes: 54 });
    await servers(projectId).expect(200);
    expect(authsFor(projectId)).toBe(1);
    w.t.clock.advance({ minutes: 2 }); // 4 minutes left: refreshed
    await servers(projectId).expect(200);
    expect(authsFor(projectId)).toBe(2);
  });

  it('a token the cloud revoked early is replaced once, and the request still succeeds', async () => {
    const projectId = await newProject('revoked');
    await servers(projectId).expect(200);
    w.fake.keystone.revokeAll();
    await servers(projectId).expect(200);
    expect(authsFor(projectId)).toBe(2);
  });

  it('uses the public endpoint of the configured region (the fake answers 404 anywhere else)', async () => {
    await servers(w.projectId).expect(200);
    expect(w.fake.callsTo('compute', 'GET').at(-1)).toMatchObject({ path: '/servers/detail' });
  });

  describe('upstream failures (rule 4)', () => {
    it('retries a read twice on 5xx, then answers 502 provider_unavailable (retryable)', async () => {
      const calls = () => w.fake.callsTo('compute', 'GET').length;
      let before = calls();
      w.fake.fail({ service: 'compute', method: 'GET', status: 503, times: 2 });
      await servers(w.projectId).expect(200);
      expect(calls() - before).toBe(3);

      before = calls();
      w.fake.fail({ service: 'compute', method: 'GET', status: 500, times: 3 });
      const failed = await servers(w.projectId).expect(502);
      expect(failed.body).toMatchObject({
        code: 'provider_unavailable',
        retryable: true,
        source_service: 'cloud',
      });
      expect(calls() - before).toBe(3);
    });

    it('never retries a write: one POST, 502', async () => {
      const before = w.fake.callsTo('compute', 'POST').length;
      w.fake.fail({ service: 'compute', method: 'POST', status: 500 });
      const res = await w.t
        .request()
        .post(`/cloud/servers?project_id=${w.projectId}`)
        .set(bearer(w.owner.jwt))
        .send({
          name: 'x',
          flavorRef: 'm1.small',
          imageRef: '5e1a4d4c-3f0b-4a57-9d41-0c1b0d1e6a01',
          networks: [],
        })
        .expect(502);
      expect(res.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
      expect(w.fake.callsTo('compute', 'POST').length - before).toBe(1);
    });

    it('a call without an answer times out (2 s here, 10 s in production) into 502, without a retry', async () => {
      const before = w.fake.callsTo('compute', 'GET').length;
      w.fake.fail({ service: 'compute', method: 'GET', hang: true });
      const res = await servers(w.projectId).expect(502);
      expect(res.body).toMatchObject({
        code: 'provider_unavailable',
        retryable: true,
        details: { timed_out: true },
      });
      expect(w.fake.callsTo('compute', 'GET').length - before).toBe(1);
    });

    it('a 403 on our own token is 502 provider_auth_failed, not retryable', async () => {
      w.fake.fail({ service: 'compute', method: 'GET', status: 403 });
      const res = await servers(w.projectId).expect(502);
      expect(res.body).toMatchObject({ code: 'provider_auth_failed', retryable: false });
    });

    it('upstream 409 is 409 conflict with its message', async () => {
      w.fake.fail({
        service: 'compute',
        method: 'DELETE',
        status: 409,
        body: { conflictingRequest: { code: 409, message: 'Cannot delete while locked' } },
      });
      const res = await w.t
        .request()
        .delete(`/cloud/servers/0b9c4a52-0000-4000-8000-000000000001?project_id=${w.projectId}`)
        .set(bearer(w.owner.jwt))
        .expect(409);
      expect(res.body).toMatchObject({
        code: 'conflict',
        details: { message: 'Cannot delete while locked', upstream_status: 409 },
      });
    });

    it('Keystone refusing the service user is 502 provider_auth_failed', async () => {
      const projectId = await newProject('bad-password');
      w.fake.fail({ service: 'identity', method: 'POST', path: /^\/auth\/tokens$/, status: 401 });
      const res = await servers(projectId).expect(502);
      expect(res.body).toMatchObject({ code: 'provider_auth_failed', retryable: false });
      // Nothing was stored: the next request provisions.
      await servers(projectId).expect(200);
    });
  });

  it('counts upstream calls per service on /metrics', async () => {
    const metrics = await w.t.request().get('/metrics').expect(200);
    expect(metrics.text).toMatch(
      /upstream_requests_total\{provider="openstack",service="compute",outcome="ok"\} \d+/,
    );
    expect(metrics.text).toMatch(
      /upstream_request_duration_seconds_bucket\{le="0.005",provider="openstack",service="identity"\}/,
    );
  });

  it('shows platform admins, and only them, the Keystone project on the project detail', async () => {
    await servers(w.projectId).expect(200);
    const admin = await w.t
      .request()
      .get(`/projects/${w.projectId}`)
      .set(bearer(w.platformJwt))
      .expect(200);
    expect(admin.body.data.openstack).toEqual({
      keystone_project_id: w.keystoneProjectOf(w.projectId),
      keystone_project_name: `platform-${w.projectId}`,
      created_at: expect.any(String),
    });
    const owner = await w.t
      .request()
      .get(`/projects/${w.projectId}`)
      .set(bearer(w.owner.jwt))
      .expect(200);
    expect(owner.body.data).not.toHaveProperty('openstack');
    const untouched = await w.t
      .request()
      .get(`/projects/${w.bareProjectId}`)
      .set(bearer(w.platformJwt))
      .expect(200);
    expect(untouched.body.data.openstack).toBeNull();
  });
});

describe('without OpenStack configured', () => {
  let t: TestApp;
  let owner: TestAccount;
  let projectId: string;

  beforeAll(async () => {
    t = await createApiTestApp();
    owner = await seedAccount(t, 'owner@nocloud.example', 'No Cloud Org');
    projectId = (
      await t
        .request()
        .post(`/organizations/${owner.organizationId}/projects`)
        .set(bearer(owner.jwt))
        .send({ name: 'p' })
        .expect(201)
    ).body.data.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 503 provider_not_configured and stores nothing', async () => {
    const res = await t
      .request()
      .get(`/cloud/servers?project_id=${projectId}`)
      .set(bearer(owner.jwt))
      .expect(503);
    expect(res.body).toMatchObject({
      code: 'provider_not_configured',
      retryable: false,
      source_service: 'cloud',
    });
    expect(await t.get(DataSource).query(`SELECT 1 FROM openstack_project`)).toEqual([]);
  });
});

describe('a cloud that cannot be reached', () => {
  it('answers 502 provider_unavailable (connection refused)', async () => {
    const fake = await FakeOpenStack.start();
    const config = fake.config();
    await fake.close();
    const t = await createApiTestApp({ config: { openstack: config } });
    try {
      const owner = await seedAccount(t, 'owner@down.example', 'Down Org');
      const projectId = (
        await t
          .request()
          .post(`/organizations/${owner.organizationId}/projects`)
          .set(bearer(owner.jwt))
          .send({ name: 'p' })
          .expect(201)
      ).body.data.id;
      const res = await t
        .request()
        .get(`/cloud/servers?project_id=${projectId}`)
        .set(bearer(owner.jwt))
        .expect(502);
      expect(res.body).toMatchObject({ code: 'provider_unavailable', retryable: true });
    } finally {
      await t.close();
    }
  });
});
