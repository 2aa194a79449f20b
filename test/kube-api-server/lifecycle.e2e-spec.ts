import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type V1CronJob,
} from '@kubernetes/client-node';
import { FakeKubeApiServer, eventually } from '@platform/testing';
import { CollectedWatch, WIDGETS, type Widget, failure, widget } from './support.js';

const CRON_JOBS = {
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  plural: 'cronjobs',
  namespaced: true,
};
const PODS = { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };
const NAMESPACES = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};
const FINALIZER = 'example.neutral.com/cleanup';

function cronJob(name: string, owners: Widget[] = [], namespace = 'team-a'): V1CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name,
      namespace,
      ownerReferences: owners.map((owner) => ({
        apiVersion: owner.apiVersion,
        kind: owner.kind,
        name: owner.metadata.name!,
        uid: owner.metadata.uid!,
        controller: owners.length === 1,
      })),
    },
    spec: { schedule: '@daily', jobTemplate: { spec: { template: { spec: { containers: [] } } } } },
  };
}

describe('FakeKubeApiServer lifecycles', () => {
  let server: FakeKubeApiServer;
  let objects: KubernetesObjectApi;
  let custom: CustomObjectsApi;

  beforeAll(async () => {
    server = await FakeKubeApiServer.start();
    server.registerKind({ ...WIDGETS, statusSubresource: true });
    objects = KubernetesObjectApi.makeApiClient(server.kubeConfig());
    custom = server.kubeConfig().makeApiClient(CustomObjectsApi);
  });

  afterAll(() => server.stop());

  it('deletes right away without finalizers and returns the deleted object', async () => {
    const created = (await objects.create(widget('plain'))) as Widget;
    const deleted = (await custom.deleteNamespacedCustomObject({
      ...WIDGETS,
      namespace: 'team-a',
      name: 'plain',
    })) as Widget;
    expect(deleted.metadata.uid).toBe(created.metadata.uid);
    expect(server.get(WIDGETS, 'team-a', 'plain')).toBeUndefined();
    expect((await failure(objects.delete(created))).code).toBe(404);
  });

  it('keeps an object with finalizers until the last one is removed', async () => {
    const created = (await objects.create({
      ...widget('guarded'),
      metadata: { name: 'guarded', namespace: 'team-a', finalizers: [FINALIZER] },
    })) as Widget;
    const watch = await CollectedWatch.open(
      server.kubeConfig(),
      '/apis/example.neutral.com/v1/namespaces/team-a/widgets',
      {
        resourceVersion: created.metadata.resourceVersion!,
        fieldSelector: 'metadata.name=guarded',
      },
    );
    try {
      const remove = () =>
        custom.deleteNamespacedCustomObject({ ...WIDGETS, namespace: 'team-a', name: 'guarded' });
      const marked = (await remove()) as Widget;
      expect(marked.metadata.deletionTimestamp).toBeDefined();
      expect(marked.metadata.generation).toBe(2);
      const stored = server.get<Widget>(WIDGETS, 'team-a', 'guarded')!;
      expect(stored.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const again = (await remove()) as Widget;
      expect(again.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
      const added = await failure(
        custom.patchNamespacedCustomObject(
          {
            ...WIDGETS,
            namespace: 'team-a',
            name: 'guarded',
            body: { metadata: { finalizers: [FINALIZER, 'other/x'] } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      );
      expect(added.code).toBe(422);
      expect(added.body.reason).toBe('Invalid');
      await custom.patchNamespacedCustomObject(
        {
          ...WIDGETS,
          namespace: 'team-a',
          name: 'guarded',
          body: { metadata: { finalizers: null } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(server.get(WIDGETS, 'team-a', 'guarded')).toBeUndefined();
      const events = await watch.waitFor(2);
      expect(events.map((event) => event.type)).toEqual(['MODIFIED', 'DELETED']);
      expect(events[1].object.metadata.finalizers).toBeUndefined();
    } finally {
      watch.stop();
    }
  });

  it('collects dependents of a deleted owner and drops the reference where another owner remains', async () => {
    const owner = (await objects.create(widget('owner'))) as Widget;
    const other = (await objects.create(widget('other-owner'))) as Widget;
    const batch = server.kubeConfig().makeApiClient(BatchV1Api);
    await batch.createNamespacedCronJob({ namespace: 'team-a', body: cronJob('owned', [owner]) });
    await batch.createNamespacedCronJob({
      namespace: 'team-a',
      body: cronJob('shared', [owner, other]),
    });
    const guarded = cronJob('owned-guarded', [owner]);
    guarded.metadata!.finalizers = [FINALIZER];
    await batch.createNamespacedCronJob({ namespace: 'team-a', body: guarded });
    await objects.delete(owner);
    await eventually(() => server.get(CRON_JOBS, 'team-a', 'owned') === undefined);
    const shared = await eventually(() => {
      const job = server.get<V1CronJob>(CRON_JOBS, 'team-a', 'shared');
      return job?.metadata?.ownerReferences?.length === 1 ? job : undefined;
    });
    expect(shared.metadata!.ownerReferences![0].uid).toBe(other.metadata.uid);
    const marked = await eventually(
      () =>
        server.get<V1CronJob>(CRON_JOBS, 'team-a', 'owned-guarded')?.metadata?.deletionTimestamp,
    );
    expect(marked).toBeDefined();
  });

  it('orphans dependents with propagationPolicy Orphan', async () => {
    const owner = (await objects.create(widget('orphaning-owner'))) as Widget;
    server.put(CRON_JOBS, cronJob('orphan', [owner]));
    await objects.delete(owner, undefined, undefined, undefined, undefined, 'Orphan');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const orphan = server.get<V1CronJob>(CRON_JOBS, 'team-a', 'orphan');
    expect(orphan?.metadata?.ownerReferences).toBeUndefined();
  });

  it('keeps the pods of a deleted Job unless asked for background propagation, like batch/v1', async () => {
    const JOBS = { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true };
    const batch = server.kubeConfig().makeApiClient(BatchV1Api);
    const podOf = (job: { metadata?: { name?: string; uid?: string } }, name: string) =>
      server.put(PODS, {
        metadata: {
          name,
          namespace: 'team-a',
          ownerReferences: [
            {
              apiVersion: 'batch/v1',
              kind: 'Job',
              name: job.metadata!.name!,
              uid: job.metadata!.uid!,
              controller: true,
            },
          ],
        },
        spec: { containers: [{ name: 'main', image: 'busybox' }] },
      });
    const template = { template: { spec: { containers: [], restartPolicy: 'Never' } } };
    const kept = server.put(JOBS, {
      metadata: { name: 'job-kept', namespace: 'team-a' },
      spec: template,
    });
    podOf(kept, 'job-kept-pod');
    await batch.deleteNamespacedJob({ namespace: 'team-a', name: 'job-kept' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(
      server.get<{ metadata: { ownerReferences?: unknown } }>(PODS, 'team-a', 'job-kept-pod')
        ?.metadata.ownerReferences,
    ).toBeUndefined();
    const removed = server.put(JOBS, {
      metadata: { name: 'job-removed', namespace: 'team-a' },
      spec: template,
    });
    podOf(removed, 'job-removed-pod');
    await batch.deleteNamespacedJob({
      namespace: 'team-a',
      name: 'job-removed',
      propagationPolicy: 'Background',
    });
    await eventually(() => server.get(PODS, 'team-a', 'job-removed-pod') === undefined);
  });

  it('deletes the objects of a deleted namespace', async () => {
    server.put(NAMESPACES, { metadata: { name: 'doomed' } });
    server.put(CRON_JOBS, cronJob('inside', [], 'doomed'));
    expect(server.get<{ status: unknown }>(NAMESPACES, undefined, 'doomed')?.status).toEqual({
      phase: 'Active',
    });
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    await core.deleteNamespace({ name: 'doomed' });
    expect(server.list(CRON_JOBS, 'doomed')).toEqual([]);
  });

  it('lets tests write status directly, as a controller would', async () => {
    const created = server.put(CRON_JOBS, {
      ...cronJob('direct'),
      status: { lastScheduleTime: '2026-01-01T00:00:00Z' },
    });
    expect(created).toMatchObject({
      status: { lastScheduleTime: '2026-01-01T00:00:00Z' },
      metadata: { generation: 1 },
    });
    const updated = server.put(CRON_JOBS, {
      ...created,
      status: { lastScheduleTime: '2026-01-02T00:00:00Z' },
    });
    expect(updated.metadata!.generation).toBe(1);
    expect(updated.metadata!.uid).toBe(created.metadata!.uid);
    expect(server.mutations({ kind: 'CronJob', name: 'direct' })).toBe(0);
  });

  it('serves pod logs as text, per container and tailed', async () => {
    const core = server.kubeConfig().makeApiClient(CoreV1Api);
    server.put(PODS, {
      metadata: { name: 'runner', namespace: 'team-a' },
      spec: {
        containers: [
          { name: 'restic', image: 'restic' },
          { name: 'sidecar', image: 'x' },
        ],
      },
    });
    server.setPodLog('team-a', 'runner', 'one\ntwo\nthree\n', 'restic');
    expect(
      await core.readNamespacedPodLog({ name: 'runner', namespace: 'team-a', container: 'restic' }),
    ).toBe('one\ntwo\nthree\n');
    expect(
      await core.readNamespacedPodLog({
        name: 'runner',
        namespace: 'team-a',
        container: 'restic',
        tailLines: 2,
      }),
    ).toBe('two\nthree\n');
    expect(
      await core.readNamespacedPodLog({
        name: 'runner',
        namespace: 'team-a',
        container: 'sidecar',
      }),
    ).toBe('');
    expect(
      (await failure(core.readNamespacedPodLog({ name: 'runner', namespace: 'team-a' }))).code,
    ).toBe(400);
    expect(
      (await failure(core.readNamespacedPodLog({ name: 'ghost', namespace: 'team-a' }))).code,
    ).toBe(404);
  });
});
