import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedMember } from '../support/factories.js';
import { bearer, type TestAccount } from '../support/identity.js';
import { type ClusterWorld, clusterBody, createClusterWorld } from './support.js';

/** Axis A (roles), Axis B (the kubernetes kind `cluster`) and tenancy on every /k8s route. */
describe('who may do what with clusters', () => {
  let w: ClusterWorld;
  /** A cluster of `projectId`, made by the owner. */
  let id: string;
  const get = (path: string, jwt = w.owner.jwt) => w.t.request().get(path).set(bearer(jwt));
  const create = (name: string, jwt = w.owner.jwt, projectId = w.projectId) =>
    w.t
      .request()
      .post(`/k8s/clusters?project_id=${projectId}`)
      .set(bearer(jwt))
      .send(clusterBody({ name }));
  const remove = (clusterId: string, jwt = w.owner.jwt, projectId = w.projectId) =>
    w.t.request().delete(`/k8s/clusters/${clusterId}?project_id=${projectId}`).set(bearer(jwt));

  beforeAll(async () => {
    w = await createClusterWorld();
    id = (await create('shared').expect(202)).body.data.id as string;
  });
  afterAll(async () => {
    await w?.close();
  });

  describe('Axis A', () => {
    const reads = (account: () => TestAccount) => async () => {
      const jwt = account().jwt;
      await get(`/k8s/clusters?project_id=${w.projectId}`, jwt).expect(200);
      await get(`/k8s/clusters/${id}?project_id=${w.projectId}`, jwt).expect(200);
      await get(`/k8s/cloudprofiles?project_id=${w.projectId}`, jwt).expect(200);
      await get(`/k8s/cloudprofiles/openstack-eu?project_id=${w.projectId}`, jwt).expect(200);
    };

    it(
      'a viewer reads clusters and cloud profiles',
      reads(() => w.viewer),
    );

    it('a viewer neither creates nor deletes (403 forbidden), and nothing is written', async () => {
      const before = w.garden.writes('Shoot').length;
      expect((await create('by-viewer', w.viewer.jwt).expect(403)).body.code).toBe('forbidden');
      expect((await remove(id, w.viewer.jwt).expect(403)).body.code).toBe('forbidden');
      expect(w.garden.writes('Shoot')).toHaveLength(before);
    });

    it('an operator reads and creates, but does not delete', async () => {
      await reads(() => w.operator)();
      const made = (await create('by-ops', w.operator.jwt).expect(202)).body.data.id as string;
      expect((await remove(made, w.operator.jwt).expect(403)).body.code).toBe('forbidden');
    });

    it('a developer creates and deletes', async () => {
      await reads(() => w.developer)();
      const made = (await create('by-dev', w.developer.jwt).expect(202)).body.data.id as string;
      await remove(made, w.developer.jwt).expect(202);
    });

    it('a billing manager sees no clusters', async () => {
      const billing = await seedMember(w.t, w.owner, 'billing@k8s.example', 'billing_manager');
      expect(
        (await get(`/k8s/clusters?project_id=${w.projectId}`, billing.jwt).expect(403)).body.code,
      ).toBe('forbidden');
    });

    it('answers 401 without credentials', async () => {
      await w.t.request().get(`/k8s/clusters?project_id=${w.projectId}`).expect(401);
      await w.t.request().get(`/k8s/cloudprofiles?project_id=${w.projectId}`).expect(401);
    });
  });

  describe('Axis B', () => {
    it('creating needs the kubernetes kind `cluster` Available; reading does not', async () => {
      const refused = await create('nope', w.owner.jwt, w.bareProjectId).expect(403);
      expect(refused.body).toMatchObject({
        code: 'kubernetes_capability_not_enabled',
        retryable: false,
      });
      await get(`/k8s/clusters?project_id=${w.bareProjectId}`).expect(200);
      await get(`/k8s/cloudprofiles?project_id=${w.bareProjectId}`).expect(200);
      expect(w.garden.writes('Project')).toHaveLength(1); // the world's own
    });

    it('the kind is provisioned-tier: an org admin cannot grant it, a platform admin can', async () => {
      const grant = (jwt: string) =>
        w.t
          .request()
          .put(
            `/organizations/${w.owner.organizationId}/projects/${w.bareProjectId}/feature-grants/kubernetes`,
          )
          .set(bearer(jwt))
          .send({ approved_configuration: { allowed_kinds: ['cluster'] } });
      expect((await grant(w.owner.jwt).expect(403)).body.code).toBe('platform_admin_required');
      await create('still-no', w.owner.jwt, w.bareProjectId).expect(403);
      await grant(w.platformJwt).expect(200);
      await create('now-yes', w.owner.jwt, w.bareProjectId).expect(202);
    });

    it('a Limit without the kind stops new creates at once, and leaves existing clusters alone', async () => {
      const limit = (kinds: string[] | null) =>
        w.t
          .request()
          .put(`/admin/organizations/${w.owner.organizationId}/features/kubernetes`)
          .set(bearer(w.platformJwt))
          .send({ ceiling_configuration: kinds === null ? null : { allowed_kinds: kinds } })
          .expect(200);
      await limit([]);
      try {
        const refused = await create('limited').expect(403);
        expect(refused.body.code).toBe('kubernetes_capability_not_enabled');
        await get(`/k8s/clusters/${id}?project_id=${w.projectId}`).expect(200);
      } finally {
        await limit(null);
      }
      await create('unlimited').expect(202);
    });
  });

  describe('tenancy', () => {
    it('another project of the organization answers 404 for the cluster, and lists only its own', async () => {
      const before = w.garden.writes('Shoot').length;
      const other = await get(`/k8s/clusters/${id}?project_id=${w.otherProjectId}`).expect(404);
      expect(other.body.code).toBe('not_found');
      await remove(id, w.owner.jwt, w.otherProjectId).expect(404);
      expect(w.garden.writes('Shoot')).toHaveLength(before);
      const theirs = await create('theirs', w.owner.jwt, w.otherProjectId).expect(202);
      const listed = await get(`/k8s/clusters?project_id=${w.otherProjectId}`).expect(200);
      expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([theirs.body.data.id]);
      expect(w.namespaceOf(w.otherProjectId)).not.toBe(w.namespaceOf(w.projectId));
      await get(`/k8s/clusters/${theirs.body.data.id}?project_id=${w.projectId}`).expect(404);
    });

    it('another organization does not even see the project (404), on any route', async () => {
      const jwt = w.stranger.jwt;
      await get(`/k8s/clusters?project_id=${w.projectId}`, jwt).expect(404);
      await get(`/k8s/clusters/${id}?project_id=${w.projectId}`, jwt).expect(404);
      await get(`/k8s/cloudprofiles?project_id=${w.projectId}`, jwt).expect(404);
      await create('intruder', jwt).expect(404);
      await remove(id, jwt).expect(404);
      // Nor from its own project.
      await get(`/k8s/clusters/${id}?project_id=${w.strangerProjectId}`, jwt).expect(404);
      await remove(id, jwt, w.strangerProjectId).expect(404);
      expect(w.garden.shoots(w.namespaceOf(w.projectId)).map((s) => s.metadata.uid)).toContain(id);
    });
  });
});
