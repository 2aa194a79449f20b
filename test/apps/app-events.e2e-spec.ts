import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppEventsWatcher } from '@platform/apps';
import type { FakeKubeApiServer, TestApp } from '@platform/testing';
import { HELM_RELEASE } from '@platform/webhooks';
import { WorkerWatchersModule } from '../../apps/worker/worker-watchers.module.js';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import { type ApiTestAppOptions, createApiTestApp } from '../support/api-app.js';
import { seedAccount } from '../support/factories.js';
import { bearer, type TestAccount } from '../support/identity.js';
import { claimsOf, deliveriesTo, eventWebhook, quiet } from '../webhooks/event-support.js';
import {
  type AppRelease,
  type HelmReleaseObject,
  helmRelease,
  kubeconfigFile,
  startAppsCluster,
} from '../webhooks/support.js';

type Release = HelmReleaseObject & { status?: Record<string, unknown> };

describe('app events: app.deployed and app.failed from the HelmReleases Flux settles', () => {
  let kube: FakeKubeApiServer;
  let kubeconfig: Awaited<ReturnType<typeof kubeconfigFile>>;
  let receiver: WebhookReceiver;
  let options: ApiTestAppOptions;
  let t: TestApp;
  /** A second worker, watching the same cluster. */
  let replica: TestApp;
  let owner: TestAccount;
  let stranger: TestAccount;
  let projectId: string;
  let hook: { signing_secret: string };

  const watchers = () => [t.get(AppEventsWatcher).watching, replica.get(AppEventsWatcher).watching];
  const app = (name: string, extra: Partial<AppRelease> = {}): AppRelease => ({
    organizationId: owner.organizationId,
    projectId,
    appId: randomUUID(),
    name,
    repository: 'registry.example.test/acme/shop',
    tag: 'v1',
    ...extra,
  });
  const namespaceOf = (a: AppRelease) => a.namespace ?? `app-${a.projectId.slice(0, 8)}`;
  const current = (a: AppRelease) => kube.get<Release>(HELM_RELEASE, namespaceOf(a), a.name)!;
  /** The Ready condition as Flux reports it for the generation it looked at. */
  const settledAs = (
    ready: 'True' | 'False' | 'Unknown',
    generation: number,
    extra: { reason?: string; message?: string; at?: Date; revision?: string } = {},
  ) => ({
    observedGeneration: generation,
    lastAttemptedRevision: extra.revision ?? '1.0.0',
    conditions: [
      {
        type: 'Ready',
        status: ready,
        reason: extra.reason ?? (ready === 'True' ? 'UpgradeSucceeded' : 'Progressing'),
        message: extra.message ?? 'Helm upgrade succeeded',
        lastTransitionTime: (extra.at ?? t.clock.now()).toISOString(),
      },
    ],
  });
  const report = (a: AppRelease, status: Record<string, unknown>) =>
    kube.put(HELM_RELEASE, { ...current(a), status });
  const told = (appId: string, type = 'app.deployed') =>
    receiver.received.waitFor((r) => r.json.type === type && dataOf(r.json).app_id === appId);
  const deliveriesOf = async (appId: string, organizationId = owner.organizationId) =>
    (await deliveriesTo(t, organizationId)).filter((d) => d.payload.data.app_id === appId);

  beforeAll(async () => {
    kube = await startAppsCluster();
    kubeconfig = await kubeconfigFile(kube.kubeconfigYaml());
    receiver = await WebhookReceiver.start();
    options = {
      withWorker: true,
      imports: [WorkerWatchersModule],
      config: { appsKubeconfig: kubeconfig.path },
    };
    t = await createApiTestApp(options);
    replica = await createApiTestApp({ ...options, shareWith: t });
    owner = await seedAccount(t, 'owner@app-events.example');
    stranger = await seedAccount(t, 'stranger@app-events.example');
    projectId = (
      await t
        .request()
        .post(`/organizations/${owner.organizationId}/projects`)
        .set(bearer(owner.jwt))
        .send({ name: 'shop' })
        .expect(201)
    ).body.data.id as string;
    hook = await eventWebhook(t, owner, receiver);
    await eventWebhook(t, stranger, receiver);
    await quiet(...watchers());
  });

  afterAll(async () => {
    await replica?.close();
    await t?.close();
    await receiver?.close();
    await kube?.stop();
    await kubeconfig?.remove();
  });

  it('tells an app going Ready once, as app.deployed, signed, though two workers watch', async () => {
    const shop = app('shop');
    kube.put(HELM_RELEASE, helmRelease(shop));
    report(shop, settledAs('Unknown', 1, { message: "Running 'install' action" }));
    report(shop, settledAs('True', 1));

    const got = await told(shop.appId);
    expect(got.verifiedBy).toEqual([hook.signing_secret]);
    expect(got.json).toEqual({
      type: 'app.deployed',
      timestamp: expect.any(String),
      data: {
        app_id: shop.appId,
        project_id: projectId,
        name: 'shop',
        kind: 'container',
        image: 'registry.example.test/acme/shop:v1',
        revision: '1.0.0',
      },
    });
    await quiet(...watchers());
    expect(await deliveriesOf(shop.appId)).toHaveLength(1);
    expect(await claimsOf(t, current(shop).metadata.uid!)).toEqual(['deployed:1.0.0:1']);
  });

  it('does not tell it again when a worker starts and finds the app Ready', async () => {
    const shop = app('restart');
    kube.put(HELM_RELEASE, { ...helmRelease(shop), status: settledAs('True', 1) });
    await told(shop.appId);
    const restarted = await createApiTestApp({ ...options, shareWith: t });
    try {
      await quiet(restarted.get(AppEventsWatcher).watching, ...watchers());
    } finally {
      await restarted.close();
    }
    expect(await deliveriesOf(shop.appId)).toHaveLength(1);
  });

  it('tells each new generation once Flux settles it, and not its periodic reconciles', async () => {
    const shop = app('upgrade');
    kube.put(HELM_RELEASE, { ...helmRelease(shop), status: settledAs('True', 1) });
    await told(shop.appId);

    // New values: generation 2, which the Ready condition is not about yet.
    const before = current(shop);
    kube.put(HELM_RELEASE, {
      ...before,
      spec: {
        values: { ...before.spec!.values, image: { ...before.spec!.values.image, tag: 'v2' } },
      },
    });
    expect(current(shop).metadata.generation).toBe(2);
    report(shop, settledAs('True', 2, { revision: '1.1.0' }));
    await receiver.received.waitFor(
      (r) => dataOf(r.json).app_id === shop.appId && dataOf(r.json).revision === '1.1.0',
    );
    // Flux reconciles the unchanged release every interval: nothing to tell.
    report(shop, settledAs('True', 2, { revision: '1.1.0', reason: 'UpgradeSucceeded' }));
    await quiet(...watchers());

    // Both made at the same instant of the test's clock: in revision order.
    const deliveries = (await deliveriesOf(shop.appId)).sort((a, b) =>
      String(a.payload.data.revision).localeCompare(String(b.payload.data.revision)),
    );
    expect(deliveries.map((d) => [d.event, d.payload.data.image, d.payload.data.revision])).toEqual(
      [
        ['app.deployed', 'registry.example.test/acme/shop:v1', '1.0.0'],
        ['app.deployed', 'registry.example.test/acme/shop:v2', '1.1.0'],
      ],
    );
  });

  it('tells an app failing as app.failed, with the reason and message of the condition', async () => {
    const shop = app('broken');
    kube.put(HELM_RELEASE, helmRelease(shop));
    report(
      shop,
      settledAs('False', 1, {
        reason: 'InstallFailed',
        message: 'Helm install failed: context deadline exceeded',
      }),
    );
    const got = await told(shop.appId, 'app.failed');
    expect(got.verifiedBy).toEqual([hook.signing_secret]);
    expect(dataOf(got.json)).toEqual({
      app_id: shop.appId,
      project_id: projectId,
      name: 'broken',
      kind: 'container',
      image: 'registry.example.test/acme/shop:v1',
      revision: '1.0.0',
      reason: 'InstallFailed',
      message: 'Helm install failed: context deadline exceeded',
    });
    await quiet(...watchers());
    expect((await deliveriesOf(shop.appId)).map((d) => d.event)).toEqual(['app.failed']);
  });

  it("tells nothing of HelmReleases without the platform's labels or not where they claim to be", async () => {
    const unlabelled = app('unlabelled');
    const bare = helmRelease(unlabelled);
    bare.metadata.labels = {};
    const elsewhere = app('elsewhere', { namespace: 'default' });
    // Labelled for the stranger's organization, in a project of the owner's.
    const foreign = app('foreign', { organizationId: stranger.organizationId });
    for (const release of [bare, helmRelease(elsewhere), helmRelease(foreign)]) {
      kube.put(HELM_RELEASE, { ...release, status: settledAs('True', 1) });
    }
    const sentinel = app('sentinel');
    kube.put(HELM_RELEASE, { ...helmRelease(sentinel), status: settledAs('True', 1) });
    await told(sentinel.appId);
    await quiet(...watchers());

    for (const ignored of [unlabelled, elsewhere, foreign]) {
      expect(await deliveriesOf(ignored.appId)).toEqual([]);
      expect(await deliveriesOf(ignored.appId, stranger.organizationId)).toEqual([]);
    }
    expect(await deliveriesTo(t, stranger.organizationId)).toEqual([]);
  });

  it('tells an app found already Ready only when it became Ready within the last hour', async () => {
    const recent = app('recent');
    const old = app('old');
    const at = (minutes: number) => new Date(t.clock.nowMs() - minutes * 60_000);
    kube.put(HELM_RELEASE, { ...helmRelease(old), status: settledAs('True', 1, { at: at(120) }) });
    kube.put(HELM_RELEASE, {
      ...helmRelease(recent),
      status: settledAs('True', 1, { at: at(10) }),
    });
    await told(recent.appId);
    await quiet(...watchers());
    expect(await deliveriesOf(old.appId)).toEqual([]);
    expect(await claimsOf(t, current(old).metadata.uid!)).toEqual([]);
  });
});

function dataOf(json: Record<string, unknown>): Record<string, unknown> {
  return (json.data ?? {}) as Record<string, unknown>;
}
