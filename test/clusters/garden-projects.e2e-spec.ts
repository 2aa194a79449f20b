import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GardenerKinds, gardenProjectName, PROJECT_ID_LABEL } from '@platform/clusters';
import { bearer } from '../support/identity.js';
import { type ClusterWorld, clusterBody, createClusterApp, createClusterWorld } from './support.js';

/** The Gardener project of each platform project: made once, adopted, never shared. */
describe("a platform project's Gardener project", () => {
  let w: ClusterWorld;
  const create = (projectId: string, name: string, t = w.t) =>
    t
      .request()
      .post(`/k8s/clusters?project_id=${projectId}`)
      .set(bearer(w.owner.jwt))
      .send(clusterBody({ name }));
  const list = (projectId: string) =>
    w.t.request().get(`/k8s/clusters?project_id=${projectId}`).set(bearer(w.owner.jwt));
  const projectPosts = () => w.garden.writes('Project').filter((m) => m === 'POST').length;
  const projectsNamed = (name: string) =>
    w.garden.projects().filter((p) => p.metadata.name === name);

  beforeAll(async () => {
    w = await createClusterWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('a burst of first creates makes one Gardener project, and every cluster', async () => {
    const projectId = await w.newProject('burst');
    const before = projectPosts();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(projectId, `c${i}`)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));
    expect(projectPosts() - before).toBe(1);
    expect(w.garden.shoots(w.namespaceOf(projectId))).toHaveLength(8);
  });

  it('two API replicas provisioning one project at once end with one Gardener project', async () => {
    const replica = await createClusterApp(w.garden, { shareWith: w.t });
    try {
      const projectId = await w.newProject('replicas');
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => create(projectId, `r${i}`, i % 2 ? replica : w.t)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(202));
      expect(projectsNamed(gardenProjectName(projectId))).toHaveLength(1);
      expect(w.garden.shoots(w.namespaceOf(projectId))).toHaveLength(6);
    } finally {
      await replica.close();
    }
  });

  it('adopts a Gardener project of its own that an interrupted provisioning left', async () => {
    const projectId = await w.newProject('left-behind');
    const name = gardenProjectName(projectId);
    w.garden.put(GardenerKinds.Project, {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Project',
      metadata: { name, labels: { [PROJECT_ID_LABEL]: projectId } },
      spec: { namespace: `garden-${name}` },
    });
    const before = projectPosts();
    await create(projectId, 'adopted').expect(202);
    expect(projectPosts()).toBe(before);
    expect(w.garden.shoot(`garden-${name}`, 'adopted')).toBeDefined();
  });

  it('never shares a Gardener project of that name serving something else (502, not retryable)', async () => {
    const projectId = await w.newProject('collision');
    const name = gardenProjectName(projectId);
    w.garden.put(GardenerKinds.Project, {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Project',
      metadata: { name, labels: { [PROJECT_ID_LABEL]: '00000000-0000-4000-8000-000000000000' } },
      spec: { namespace: `garden-${name}` },
      status: { phase: 'Ready' },
    });
    const refused = await create(projectId, 'mine').expect(502);
    expect(refused.body).toMatchObject({
      code: 'provider_unavailable',
      retryable: false,
      details: { provider: 'garden', gardener_project: name },
    });
    expect((await list(projectId).expect(502)).body.code).toBe('provider_unavailable');
    expect(w.garden.shoots(`garden-${name}`)).toEqual([]);
  });

  it('answers 502 retryable while Gardener has not made the project Ready, and succeeds once it has', async () => {
    const projectId = await w.newProject('slow');
    w.garden.holdProjects = true;
    const shootWrites = w.garden.writes('Shoot').length;
    try {
      const waiting = await create(projectId, 'first').expect(502);
      expect(waiting.body).toMatchObject({
        code: 'provider_unavailable',
        retryable: true,
        details: { gardener_project: gardenProjectName(projectId) },
      });
      expect(w.garden.writes('Shoot')).toHaveLength(shootWrites);
    } finally {
      w.garden.holdProjects = false;
    }
    await create(projectId, 'first').expect(202);
    expect(projectsNamed(gardenProjectName(projectId))).toHaveLength(1);
  });
});
