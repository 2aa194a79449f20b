import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GardenerKinds, gardenProjectName } from '@platform/clusters';
import { DataSource } from 'typeorm';
import { bearer } from '../support/identity.js';
import { type ClusterWorld, clusterBody, createClusterWorld } from './support.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Kubernetes clusters over Gardener', () => {
  let w: ClusterWorld;
  const clusters = (projectId = w.projectId) => `/k8s/clusters?project_id=${projectId}`;
  const cluster = (id: string, projectId = w.projectId) =>
    `/k8s/clusters/${id}?project_id=${projectId}`;
  const get = (path: string, jwt = w.owner.jwt) => w.t.request().get(path).set(bearer(jwt));
  const post = (path: string, body: object, jwt = w.owner.jwt) =>
    w.t.request().post(path).set(bearer(jwt)).send(body);
  const del = (path: string, jwt = w.owner.jwt) => w.t.request().delete(path).set(bearer(jwt));

  beforeAll(async () => {
    w = await createClusterWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('lists nothing, and makes no Gardener project, before the first create', async () => {
    const listed = await get(clusters()).expect(200);
    expect(listed.body).toMatchObject({
      data: [],
      metadata: { count: 0, project_id: w.projectId },
    });
    expect(w.garden.writes('Project')).toEqual([]);
  });

  it("creates the project's Gardener project on first use, then the Shoot (202, as it stands)", async () => {
    const created = await post(clusters(), clusterBody()).expect(202);
    expect(created.body.metadata.project_id).toBe(w.projectId);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(UUID),
      name: 'prod',
      kubernetes_version: '1.31.2',
      cloud_profile: 'openstack-eu',
      region: 'eu-de-1',
      workers: [{ name: 'default', machine_type: 'm1.large', minimum: 1, maximum: 3 }],
      status: {
        state: 'Pending',
        progress: 0,
        type: 'Create',
        description: null,
        last_update_time: null,
      },
      conditions: [],
      created_at: expect.any(String),
    });

    const name = `p${w.projectId.replace(/-/g, '').slice(0, 8)}`;
    expect(gardenProjectName(w.projectId)).toBe(name);
    const [project] = w.garden.projects().filter((p) => p.metadata.name === name);
    expect(project).toMatchObject({
      metadata: {
        labels: {
          'platform.k8s.neutral.com/project-id': w.projectId,
          'platform.k8s.neutral.com/organization-id': w.owner.organizationId,
        },
      },
      spec: { namespace: `garden-${name}` },
      status: { phase: 'Ready' },
    });
    expect(w.garden.writes('Project')).toEqual(['POST']);

    const shoot = w.garden.shoot(`garden-${name}`, 'prod')!;
    expect(shoot.metadata.uid).toBe(created.body.data.id);
    expect(shoot.metadata.labels).toEqual({
      'platform.k8s.neutral.com/project-id': w.projectId,
      'platform.k8s.neutral.com/organization-id': w.owner.organizationId,
    });
    expect(shoot.spec).toEqual({
      credentialsBindingName: 'openstack-eu',
      networking: { type: 'calico' },
      cloudProfileName: 'openstack-eu',
      cloudProfile: { kind: 'CloudProfile', name: 'openstack-eu' },
      region: 'eu-de-1',
      kubernetes: { version: '1.31.2' },
      provider: {
        type: 'openstack',
        workers: [
          {
            name: 'default',
            machine: { type: 'm1.large' },
            minimum: 1,
            maximum: 3,
            zones: ['eu-de-1a'],
          },
        ],
      },
    });
  });

  it('takes project_id from the body of a create, and answers 422 without one anywhere', async () => {
    const created = await post('/k8s/clusters', {
      ...clusterBody({ name: 'from-body' }),
      project_id: w.projectId,
    }).expect(202);
    expect(created.body.metadata.project_id).toBe(w.projectId);
    const missing = await get('/k8s/clusters').expect(422);
    expect(missing.body).toMatchObject({
      code: 'validation_failed',
      details: { fields: [{ field: 'project_id' }] },
    });
    await w.t.request().get('/k8s/clusters').expect(401);
  });

  it('reads status and progress from .status.lastOperation, and the conditions', async () => {
    const id = (await post(clusters(), clusterBody({ name: 'watched' })).expect(202)).body.data
      .id as string;
    w.garden.report(w.namespaceOf(w.projectId), 'watched', {
      lastOperation: {
        type: 'Create',
        state: 'Processing',
        progress: 42,
        description: 'Waiting until the Kubernetes API server is available',
        lastUpdateTime: '2026-01-02T03:04:05Z',
      },
      conditions: [
        {
          type: 'APIServerAvailable',
          status: 'Progressing',
          reason: 'HealthzRequestFailed',
          message: 'API server /healthz endpoint check returned a non ok status code 503',
          lastTransitionTime: '2026-01-02T03:00:00Z',
          lastUpdateTime: '2026-01-02T03:04:00Z',
        },
        { type: 'EveryNodeReady', status: 'Unknown' },
      ],
    });
    const shown = await get(cluster(id)).expect(200);
    expect(shown.body.data.status).toEqual({
      state: 'Processing',
      progress: 42,
      type: 'Create',
      description: 'Waiting until the Kubernetes API server is available',
      last_update_time: '2026-01-02T03:04:05Z',
    });
    expect(shown.body.data.conditions).toEqual([
      {
        type: 'APIServerAvailable',
        status: 'Progressing',
        reason: 'HealthzRequestFailed',
        message: 'API server /healthz endpoint check returned a non ok status code 503',
        last_transition_time: '2026-01-02T03:00:00Z',
      },
      {
        type: 'EveryNodeReady',
        status: 'Unknown',
        reason: null,
        message: null,
        last_transition_time: null,
      },
    ]);

    w.garden.report(w.namespaceOf(w.projectId), 'watched', {
      lastOperation: { type: 'Create', state: 'Succeeded', progress: 100 },
    });
    const listed = await get(clusters()).expect(200);
    expect(listed.body.data.find((c: { id: string }) => c.id === id).status).toMatchObject({
      state: 'Succeeded',
      progress: 100,
    });
    expect(listed.body.metadata.count).toBe(listed.body.data.length);
    const names = listed.body.data.map((c: { name: string }) => c.name);
    expect(names).toEqual([...names].sort());
  });

  it('answers 409 conflict for a second cluster of the same name in the project', async () => {
    await post(clusters(), clusterBody({ name: 'twice' })).expect(202);
    const again = await post(clusters(), clusterBody({ name: 'twice' })).expect(409);
    expect(again.body).toMatchObject({
      code: 'conflict',
      message: "A cluster named 'twice' already exists in this project",
    });
    // Another project may use the name.
    await post(clusters(w.otherProjectId), clusterBody({ name: 'twice' })).expect(202);
  });

  it('deletes by confirming first, then deleting: 202 with the cluster deleting, 404 once Gardener is done', async () => {
    const namespace = w.namespaceOf(w.projectId);
    const id = (await post(clusters(), clusterBody({ name: 'doomed' })).expect(202)).body.data
      .id as string;
    // Gardener keeps a Shoot by its finalizer until the machines are gone.
    const shoot = w.garden.shoot(namespace, 'doomed')!;
    w.garden.put(GardenerKinds.Shoot, {
      ...shoot,
      metadata: { ...shoot.metadata, finalizers: ['gardener'] },
    });
    const before = w.garden.writes('Shoot').length;

    const deleted = await del(cluster(id)).expect(202);
    expect(deleted.body.data).toMatchObject({
      id,
      name: 'doomed',
      status: { state: 'Pending', progress: 0, type: 'Delete' },
    });
    expect(w.garden.writes('Shoot').slice(before)).toEqual(['PATCH doomed', 'DELETE doomed']);
    const deleting = w.garden.shoot(namespace, 'doomed')!;
    expect(deleting.metadata.annotations).toEqual({
      'confirmation.gardener.cloud/deletion': 'true',
    });
    expect(deleting.metadata.deletionTimestamp).toBeDefined();

    w.garden.report(namespace, 'doomed', {
      lastOperation: { type: 'Delete', state: 'Processing', progress: 60 },
    });
    const shown = await get(cluster(id)).expect(200);
    expect(shown.body.data.status).toMatchObject({
      type: 'Delete',
      state: 'Processing',
      progress: 60,
    });

    // Gardener finishes: the finalizer goes, and so does the Shoot.
    const last = w.garden.shoot(namespace, 'doomed')!;
    w.garden.put(GardenerKinds.Shoot, { ...last, metadata: { ...last.metadata, finalizers: [] } });
    expect((await get(cluster(id)).expect(404)).body.code).toBe('not_found');
    await del(cluster(id)).expect(404);
  });

  it('reports a Shoot that was gone at once as deleted', async () => {
    const id = (await post(clusters(), clusterBody({ name: 'quick' })).expect(202)).body.data
      .id as string;
    const deleted = await del(cluster(id)).expect(202);
    expect(deleted.body.data.status).toEqual({
      state: 'Succeeded',
      progress: 100,
      type: 'Delete',
      description: 'The cluster is deleted',
      last_update_time: null,
    });
    expect(w.garden.shoot(w.namespaceOf(w.projectId), 'quick')).toBeUndefined();
  });

  it('answers 404 for an unknown or malformed id, without writing', async () => {
    const before = w.garden.writes('Shoot').length;
    await get(cluster('0b9c4a52-0000-4000-8000-000000000001')).expect(404);
    await del(cluster('0b9c4a52-0000-4000-8000-000000000001')).expect(404);
    await get(cluster('not-a-uid')).expect(404);
    expect(w.garden.writes('Shoot')).toHaveLength(before);
  });

  it('audits creates and deletes as clusters.create / clusters.delete', async () => {
    const id = (await post(clusters(), clusterBody({ name: 'audited' })).expect(202)).body.data
      .id as string;
    await del(cluster(id)).expect(202);
    const rows: Array<{
      action: string;
      target_type: string;
      project_id: string;
      actor_account_id: string;
      details: Record<string, unknown>;
    }> = await w.t
      .get(DataSource)
      .query(
        `SELECT action, target_type, project_id, actor_account_id, details FROM audit_log WHERE target_id = $1 ORDER BY action`,
        [id],
      );
    expect(rows).toEqual([
      {
        action: 'clusters.create',
        target_type: 'cluster',
        project_id: w.projectId,
        actor_account_id: w.owner.accountId,
        details: {
          name: 'audited',
          cloud_profile: 'openstack-eu',
          region: 'eu-de-1',
          kubernetes_version: '1.31.2',
          gardener_namespace: w.namespaceOf(w.projectId),
        },
      },
      {
        action: 'clusters.delete',
        target_type: 'cluster',
        project_id: w.projectId,
        actor_account_id: w.owner.accountId,
        details: { name: 'audited' },
      },
    ]);
  });
});
