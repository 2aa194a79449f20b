import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppEventsWatcher } from '@platform/apps';
import { ClusterEventsWatcher } from '@platform/clusters';
import type { AppConfig } from '@platform/core';
import { SERVER_WATCH_SCHEDULER_ID } from '@platform/openstack';
import { JobQueue, QueueName } from '@platform/queue';
import type { FakeKubeApiServer, TestApp } from '@platform/testing';
import { HELM_RELEASE, OrganizationWebhooksPruneProcessor } from '@platform/webhooks';
import { DataSource } from 'typeorm';
import { WorkerModule } from '../../apps/worker/worker.module.js';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import { FakeGarden } from '../clusters/gardener-fixtures.js';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount } from '../support/factories.js';
import { bearer } from '../support/identity.js';
import { deliveriesTo, eventWebhook, quiet } from './event-support.js';
import { helmRelease, kubeconfigFile, startAppsCluster } from './support.js';

/** OpenStack settings nothing is called with: no server is pending, so a poll calls nobody. */
const UNCALLED_OPENSTACK: AppConfig['openstack'] = {
  authUrl: 'http://127.0.0.1:9/identity/v3',
  username: 'platform',
  password: 'unused',
  userDomain: 'Default',
  projectDomain: 'Default',
  region: 'RegionOne',
};

describe('the worker process watches for webhook events only where it is configured to', () => {
  let t: TestApp;
  let kube: FakeKubeApiServer;
  let kubeconfig: Awaited<ReturnType<typeof kubeconfigFile>>;
  let garden: FakeGarden;
  let receiver: WebhookReceiver;
  const workers: INestApplicationContext[] = [];

  /** A worker process as production composes it, on the API's database and Redis prefix. */
  const startWorker = async (config: Partial<AppConfig>) => {
    const worker = await NestFactory.createApplicationContext(
      WorkerModule.forRoot({ ...t.config, ...config }),
      { logger: false },
    );
    workers.push(worker);
    return worker;
  };
  const scheduler = () =>
    t.get(JobQueue).queue(QueueName.Maintenance).getJobScheduler(SERVER_WATCH_SCHEDULER_ID);

  beforeAll(async () => {
    kube = await startAppsCluster();
    kubeconfig = await kubeconfigFile(kube.kubeconfigYaml());
    garden = await FakeGarden.start();
    receiver = await WebhookReceiver.start();
    t = await createApiTestApp();
    // The fixtures' own set-up (their CRDs) is not the worker's doing.
    kube.clearRequests();
    garden.server.clearRequests();
  });

  afterAll(async () => {
    for (const worker of workers.reverse()) await worker.close();
    await t?.close();
    await receiver?.close();
    await garden?.stop();
    await kube?.stop();
    await kubeconfig?.remove();
  });

  it('starts no watch and schedules no server poll with the kubeconfigs and OpenStack unset', async () => {
    const worker = await startWorker({
      appsKubeconfig: null,
      gardenKubeconfig: null,
      openstack: null,
    });
    expect(worker.get(AppEventsWatcher, { strict: false }).watching).toBeUndefined();
    expect(worker.get(ClusterEventsWatcher, { strict: false }).watching).toBeUndefined();
    expect(await scheduler()).toBeFalsy();
    expect(kube.requests).toEqual([]);
    expect(garden.server.requests).toEqual([]);
    await worker.close();
    workers.pop();
  });

  it('watches both clusters and polls servers when configured; two workers tell an app once', async () => {
    const config = {
      appsKubeconfig: kubeconfig.path,
      gardenKubeconfig: garden.kubeconfigPath,
      openstack: UNCALLED_OPENSTACK,
    };
    const [first, second] = [await startWorker(config), await startWorker(config)];
    const watchers = [first, second].flatMap((worker) => [
      worker.get(AppEventsWatcher, { strict: false }).watching,
      worker.get(ClusterEventsWatcher, { strict: false }).watching,
    ]);
    await quiet(...watchers);
    expect(await scheduler()).toMatchObject({ every: expect.any(Number) });

    const owner = await seedAccount(t, 'owner@event-workers.example');
    const projectId = (
      await t
        .request()
        .post(`/organizations/${owner.organizationId}/projects`)
        .set(bearer(owner.jwt))
        .send({ name: 'shop' })
        .expect(201)
    ).body.data.id as string;
    const hook = await eventWebhook(t, owner, receiver);
    const appId = randomUUID();
    const release = helmRelease({
      organizationId: owner.organizationId,
      projectId,
      appId,
      name: 'shop',
      repository: 'registry.example.test/acme/shop',
      tag: 'v1',
    });
    const ready = {
      type: 'Ready',
      status: 'True',
      reason: 'InstallSucceeded',
      lastTransitionTime: new Date().toISOString(),
    };
    kube.put(HELM_RELEASE, { ...release, status: { observedGeneration: 1, conditions: [ready] } });

    // Sent by a worker process: the API here runs no job processors.
    const got = await receiver.received.waitFor((r) => r.json.type === 'app.deployed');
    expect(got.verifiedBy).toEqual([hook.signing_secret]);
    expect(got.json.data).toMatchObject({ app_id: appId, project_id: projectId });
    await quiet(...watchers);
    expect(await deliveriesTo(t, owner.organizationId)).toHaveLength(1);
  });

  it('prunes event claims after 90 days with the deliveries', async () => {
    const db = t.get(DataSource);
    const claim = (uid: string, days: number) =>
      db.query(
        `INSERT INTO organization_webhook_event
           (source, object_uid, transition, organization_id, event, emitted_at)
         VALUES ('server', $1, 'active', $2, 'server.active', now() - make_interval(days => $3))`,
        [uid, randomUUID(), days],
      );
    await claim('old-server', 91);
    await claim('recent-server', 89);
    const worker = workers.at(-1)!;
    const pruned = await worker.get(OrganizationWebhooksPruneProcessor, { strict: false }).prune();
    expect(pruned.claims).toBe(1);
    const left: Array<{ object_uid: string }> = await db.query(
      `SELECT object_uid FROM organization_webhook_event
        WHERE object_uid IN ('old-server', 'recent-server')`,
    );
    expect(left).toEqual([{ object_uid: 'recent-server' }]);
  });
});
