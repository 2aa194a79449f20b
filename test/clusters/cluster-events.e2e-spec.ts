import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ClusterEventsWatcher,
  GardenerKinds,
  gardenProjectName,
  PROJECT_ID_LABEL,
  type Shoot,
} from '@platform/clusters';
import type { TestApp } from '@platform/testing';
import { WorkerWatchersModule } from '../../apps/worker/worker-watchers.module.js';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import { bearer } from '../support/identity.js';
import { claimsOf, deliveriesTo, eventWebhook, quiet } from '../webhooks/event-support.js';
import { type ClusterWorld, clusterBody, createClusterApp, createClusterWorld } from './support.js';

const WATCHING = { withWorker: true, imports: [WorkerWatchersModule] };

describe('cluster events: cluster.ready when a Shoot first succeeds', () => {
  let w: ClusterWorld;
  /** A second worker, watching the same garden. */
  let replica: TestApp;
  let receiver: WebhookReceiver;
  let hook: { signing_secret: string };

  const watchers = () => [
    w.t.get(ClusterEventsWatcher).watching,
    replica.get(ClusterEventsWatcher).watching,
  ];
  const create = async (name: string, projectId = w.projectId) =>
    (
      await w.t
        .request()
        .post(`/k8s/clusters?project_id=${projectId}`)
        .set(bearer(w.owner.jwt))
        .send(clusterBody({ name }))
        .expect(202)
    ).body.data.id as string;
  const operation = (type: string, state: string) => ({
    lastOperation: { type, state, progress: state === 'Succeeded' ? 100 : 40 },
  });
  const readyOf = async (clusterId: string, organizationId = w.owner.organizationId) =>
    (await deliveriesTo(w.t, organizationId, 'cluster.ready')).filter(
      (d) => d.payload.data.cluster_id === clusterId,
    );
  const told = (clusterId: string) =>
    receiver.received.waitFor(
      (r) =>
        r.json.type === 'cluster.ready' &&
        (r.json.data as Record<string, unknown>).cluster_id === clusterId,
    );
  /** A Shoot put into the garden as is, shaped like the platform's `prod` of the project. */
  const foreignShoot = (name: string, namespace: string, labels: Record<string, string>) => {
    const template = w.garden.shoot(w.namespaceOf(w.projectId), 'prod')!;
    const shoot: Shoot = {
      apiVersion: template.apiVersion,
      kind: template.kind,
      metadata: { name, namespace, labels },
      spec: template.spec,
      status: operation('Create', 'Succeeded'),
    };
    return w.garden.put(GardenerKinds.Shoot, shoot);
  };
  /** A Gardener project named as platform project `projectId`'s would be, labelled `label`. */
  const gardenerProject = (projectId: string, label: string) => {
    const name = gardenProjectName(projectId);
    w.garden.put(GardenerKinds.Project, {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Project',
      metadata: { name, labels: { [PROJECT_ID_LABEL]: label } },
      spec: { namespace: `garden-${name}` },
    });
    return `garden-${name}`;
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    w = await createClusterWorld(WATCHING);
    replica = await createClusterApp(w.garden, { shareWith: w.t, ...WATCHING });
    hook = await eventWebhook(w.t, w.owner, receiver);
    await eventWebhook(w.t, w.stranger, receiver);
    await quiet(...watchers());
  });

  afterAll(async () => {
    await replica?.close();
    await w?.close();
    await receiver?.close();
  });

  it('tells a cluster whose Create succeeds once, as cluster.ready, though two workers watch', async () => {
    const id = await create('prod');
    const namespace = w.namespaceOf(w.projectId);
    w.garden.report(namespace, 'prod', operation('Create', 'Processing'));
    await quiet(...watchers());
    expect(await readyOf(id)).toEqual([]);

    w.garden.report(namespace, 'prod', operation('Create', 'Succeeded'));
    const got = await told(id);
    expect(got.verifiedBy).toEqual([hook.signing_secret]);
    expect(got.json).toEqual({
      type: 'cluster.ready',
      timestamp: expect.any(String),
      data: {
        cluster_id: id,
        project_id: w.projectId,
        name: 'prod',
        kubernetes_version: '1.31.2',
        region: 'eu-de-1',
      },
    });
    // Gardener reconciles the cluster later on: nothing more to tell.
    w.garden.report(namespace, 'prod', operation('Reconcile', 'Processing'));
    w.garden.report(namespace, 'prod', operation('Reconcile', 'Succeeded'));
    await quiet(...watchers());
    expect(await readyOf(id)).toHaveLength(1);
    expect(await claimsOf(w.t, id)).toEqual(['ready']);
  });

  it('does not tell it again when a worker starts and finds the cluster ready', async () => {
    const id = w.garden.shoot(w.namespaceOf(w.projectId), 'prod')!.metadata.uid!;
    const restarted = await createClusterApp(w.garden, { shareWith: w.t, ...WATCHING });
    try {
      await quiet(restarted.get(ClusterEventsWatcher).watching, ...watchers());
    } finally {
      await restarted.close();
    }
    expect(await readyOf(id)).toHaveLength(1);
  });

  it('tells a new cluster first seen succeeding in a Reconcile (its Create missed)', async () => {
    const id = await create('staging', w.otherProjectId);
    w.garden.report(
      w.namespaceOf(w.otherProjectId),
      'staging',
      operation('Reconcile', 'Succeeded'),
    );
    await told(id);
    await quiet(...watchers());
    expect(await readyOf(id)).toHaveLength(1);
  });

  it("tells nothing of Shoots without the platform's label or outside their project's Gardener project", async () => {
    const ours = w.namespaceOf(w.projectId);
    const ignored = [
      foreignShoot('bare', ours, {}),
      // Labelled for the stranger's project, in the namespace of the owner's.
      foreignShoot('theirs', ours, { [PROJECT_ID_LABEL]: w.strangerProjectId }),
    ];
    // The Gardener project a platform project's would be, made by someone else for another.
    const squatted = gardenerProject(w.bareProjectId, randomUUID());
    ignored.push(foreignShoot('squatter', squatted, { [PROJECT_ID_LABEL]: w.bareProjectId }));
    // A Gardener project of a project the platform does not have (deleted, or never made).
    const unknown = randomUUID();
    const unknownNamespace = gardenerProject(unknown, unknown);
    ignored.push(foreignShoot('unknown', unknownNamespace, { [PROJECT_ID_LABEL]: unknown }));
    // Then one the platform could have made, told as a check that the others were seen first.
    const sentinel = foreignShoot('sentinel', ours, { [PROJECT_ID_LABEL]: w.projectId });
    await told(sentinel.metadata.uid!);
    await quiet(...watchers());

    for (const shoot of ignored) {
      expect(await readyOf(shoot.metadata.uid!)).toEqual([]);
      expect(await claimsOf(w.t, shoot.metadata.uid!)).toEqual([]);
    }
    expect(await deliveriesTo(w.t, w.stranger.organizationId)).toEqual([]);
  });

  it('tells a cluster found ready at start-up only when created within the day; a live create always', async () => {
    // A day and more later: the receiver's check of the signed time cannot pass any more.
    receiver.verifying = false;
    w.t.clock.advance({ hours: 25 });
    const namespace = w.namespaceOf(w.projectId);
    const old = foreignShoot('old', namespace, { [PROJECT_ID_LABEL]: w.projectId });
    const live = foreignShoot('live', namespace, { [PROJECT_ID_LABEL]: w.projectId });
    w.garden.report(namespace, 'live', operation('Create', 'Processing'));
    await quiet(...watchers());
    w.garden.report(namespace, 'live', operation('Create', 'Succeeded'));
    await told(live.metadata.uid!);
    await quiet(...watchers());
    expect(await readyOf(old.metadata.uid!)).toEqual([]);
    expect(await readyOf(live.metadata.uid!)).toHaveLength(1);
  });
});
