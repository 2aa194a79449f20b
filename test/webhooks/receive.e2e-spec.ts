import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeKubeApiServer, type TestApp } from '@platform/testing';
import {
  HELM_RELEASE,
  ORGANIZATION_WEBHOOK_POLICY,
  type OrganizationWebhookPolicy,
} from '@platform/webhooks';
import { WebhookReceiver } from '../alerting/endpoints-receiver.js';
import { expectError } from '../support/clients/index.js';
import { seedAccount } from '../support/factories.js';
import { bearer, type TestAccount } from '../support/identity.js';
import {
  type AppRelease,
  digest,
  type HelmReleaseObject,
  helmRelease,
  kubeconfigFile,
  pushEvent,
  startAppsCluster,
  webhooksApiApp,
} from './support.js';

const POLICY: OrganizationWebhookPolicy = {
  attempts: 3,
  backoffMs: 50,
  timeoutMs: 10_000,
  previousSecretGraceMs: 24 * 3_600_000,
};
const IMAGE = 'registry.example.test/acme/shop';

describe('webhook receive: registry pushes pin container apps to the pushed digest', () => {
  let t: TestApp;
  let cluster: FakeKubeApiServer;
  let kubeconfig: Awaited<ReturnType<typeof kubeconfigFile>>;
  let receiver: WebhookReceiver;
  let owner: TestAccount;
  let stranger: TestAccount;
  let hook: { id: string; secret: string; signing_secret: string };
  const projectA = randomUUID();
  const projectB = randomUUID();

  /** Each receive a second after the last, so receipts list newest first. */
  const receive = (body: object, authorization = hook.secret, id = hook.id) => {
    t.clock.advance({ seconds: 1 });
    return t
      .request()
      .post(`/webhooks/${id}/receive`)
      .set('Authorization', authorization)
      .send(body);
  };
  const release = (app: AppRelease) => cluster.put(HELM_RELEASE, helmRelease(app));
  const imageOf = (app: { projectId: string; name: string }) =>
    cluster.get<HelmReleaseObject>(HELM_RELEASE, `app-${app.projectId.slice(0, 8)}`, app.name)!
      .spec!.values.image;
  const patches = () => cluster.mutations({ kind: 'HelmRelease' });
  const receipts = async () =>
    (await t.request().get(`/webhooks/${hook.id}/receipts`).set(bearer(owner.jwt)).expect(200)).body
      .data as Array<Record<string, unknown>>;
  const app = (name: string, projectId: string, extra: Partial<AppRelease> = {}) => ({
    organizationId: owner.organizationId,
    projectId,
    appId: randomUUID(),
    name,
    repository: IMAGE,
    tag: 'v1',
    ...extra,
  });

  beforeAll(async () => {
    cluster = await startAppsCluster();
    kubeconfig = await kubeconfigFile(cluster.kubeconfigYaml());
    receiver = await WebhookReceiver.start();
    t = await webhooksApiApp({
      withWorker: true,
      // The receiver of app.deployed listens on 127.0.0.1.
      config: { appsKubeconfig: kubeconfig.path, outboundAllowPrivateNetworks: true },
      override: (builder) => builder.overrideProvider(ORGANIZATION_WEBHOOK_POLICY).useValue(POLICY),
    });
    owner = await seedAccount(t, 'owner@receive.example');
    stranger = await seedAccount(t, 'stranger@receive.example');
    const res = await t
      .request()
      .post('/webhooks')
      .set(bearer(owner.jwt))
      .send({ webhook: { name: 'registry', url: receiver.url('/hooks/platform') } })
      .expect(201);
    hook = res.body.data;
    receiver.secrets.push(hook.signing_secret);
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await cluster?.stop();
    await kubeconfig?.remove();
  });

  describe('with the apps cluster up', () => {
    let shopA: AppRelease;
    let shopB: AppRelease;

    beforeAll(() => {
      shopA = app('shop', projectA);
      shopB = app('storefront', projectB);
      release(shopA);
      release(shopB);
      // Same image at another tag, another kind, another organization, a release outside its
      // project's namespace: none of them is touched.
      release(app('shop-next', projectA, { tag: 'v2' }));
      release(app('blog', projectA, { kind: 'wordpress' }));
      release(app('theirs', randomUUID(), { organizationId: stranger.organizationId }));
      release(app('stray', projectB, { namespace: 'default' }));
    });

    it('pins every matching container app of the organization and answers 202 with them', async () => {
      const pushed = digest('1');
      const before = patches();
      const res = await receive(pushEvent(`${IMAGE}:v1`, pushed)).expect(202);
      const reconciled = [shopA, shopB]
        .map((a) => ({ app_id: a.appId, project_id: a.projectId, name: a.name, digest: pushed }))
        .sort((a, b) => a.project_id.localeCompare(b.project_id) || a.name.localeCompare(b.name));
      expect(res.body.data).toEqual({ reconciled, unchanged: [] });
      expect(res.body.metadata.organization_id).toBeNull();
      expect(imageOf(shopA)).toEqual({ repository: IMAGE, tag: 'v1', digest: pushed });
      expect(imageOf(shopB)).toEqual({ repository: IMAGE, tag: 'v1', digest: pushed });
      expect(patches() - before).toBe(2);
      for (const other of cluster.list<HelmReleaseObject>(HELM_RELEASE)) {
        if (!['shop', 'storefront'].includes(other.metadata.name!))
          expect(other.spec!.values.image.digest).toBeUndefined();
      }
      expect((await receipts())[0]).toEqual({
        id: expect.any(String),
        received_at: t.clock.now().toISOString(),
        event_type: 'PUSH_ARTIFACT',
        resource_url: `${IMAGE}:v1`,
        digest: pushed,
        outcome: 'reconciled',
        apps: reconciled.map((entry) => ({ ...entry, changed: true })),
        error: null,
      });
    });

    it('changes nothing on a replayed push: no patch, the apps listed as unchanged', async () => {
      const pushed = digest('1');
      const before = patches();
      const res = await receive(pushEvent(`${IMAGE}:v1`, pushed)).expect(202);
      expect(res.body.data.reconciled).toEqual([]);
      expect(res.body.data.unchanged.map((a: { name: string }) => a.name).sort()).toEqual([
        'shop',
        'storefront',
      ]);
      expect(patches()).toBe(before);
      expect((await receipts())[0]).toMatchObject({ outcome: 'unchanged', digest: pushed });
    });

    it('moves the apps on to a newer digest, accepting the secret as a Bearer too', async () => {
      const pushed = digest('2');
      const res = await receive(pushEvent(`${IMAGE}:v1`, pushed), `Bearer ${hook.secret}`).expect(
        202,
      );
      expect(res.body.data.reconciled).toHaveLength(2);
      expect(imageOf(shopA).digest).toBe(pushed);
    });

    it('matches by repository and tag exactly, a registry port included', async () => {
      const ported = app('ported', projectA, { repository: 'registry.example.test:5000/acme/api' });
      release(ported);
      const res = await receive(
        pushEvent('registry.example.test:5000/acme/api:v1', digest('3')),
      ).expect(202);
      expect(res.body.data.reconciled.map((a: { app_id: string }) => a.app_id)).toEqual([
        ported.appId,
      ]);
    });

    it('answers 202 with nothing reconciled for a push no app runs, and records no_match', async () => {
      const before = patches();
      for (const url of [`${IMAGE}:v9`, 'registry.example.test/acme/other:v1']) {
        const res = await receive(pushEvent(url, digest('4'))).expect(202);
        expect(res.body.data).toEqual({ reconciled: [], unchanged: [] });
      }
      // Pushed by digest only: apps name their image by tag, so nothing matches.
      const byDigest = pushEvent(`${IMAGE}:v1`, digest('4'));
      (
        byDigest.event_data as { resources: Array<Record<string, unknown>> }
      ).resources[0].resource_url = `${IMAGE}@${digest('4')}`;
      await receive(byDigest).expect(202);
      expect(patches()).toBe(before);
      expect((await receipts()).slice(0, 3).map((r) => r.outcome)).toEqual([
        'no_match',
        'no_match',
        'no_match',
      ]);
    });

    it('accepts other event types with 202 and changes nothing', async () => {
      const before = patches();
      const res = await receive({ type: 'DELETE_ARTIFACT', event_data: {} }).expect(202);
      expect(res.body.data).toEqual({ reconciled: [], unchanged: [] });
      expect(patches()).toBe(before);
      expect((await receipts())[0]).toMatchObject({
        outcome: 'ignored',
        event_type: 'DELETE_ARTIFACT',
      });
    });

    it('refuses a malformed push with 422 naming each field, and patches nothing', async () => {
      const good = () => pushEvent(`${IMAGE}:v1`, digest('5'));
      const resource = (body: Record<string, unknown>) =>
        (body.event_data as { resources: Array<Record<string, unknown>> }).resources[0];
      const cases: Array<[(body: Record<string, unknown>) => object, string[]]> = [
        [() => ({ event_data: {} }), ['type']],
        [(b) => ({ ...b, type: 7 }), ['type']],
        [(b) => ({ ...b, event_data: undefined }), ['event_data']],
        [(b) => ({ ...b, event_data: { resources: [] } }), ['event_data.resources']],
        [(b) => ({ ...b, event_data: { resources: ['x'] } }), ['event_data.resources.0']],
        [(b) => ((resource(b).digest = 'latest'), b), ['event_data.resources.0.digest']],
        [(b) => ((resource(b).resource_url = 'shop'), b), ['event_data.resources.0.resource_url']],
        [(b) => ((resource(b).resource_url = 42), b), ['event_data.resources.0.resource_url']],
        [(b) => ({ ...b, occur_at: 'yesterday', operator: 3 }), ['occur_at', 'operator']],
        [
          (b) => ((resource(b).digest = undefined), (resource(b).tag = 1), b),
          ['event_data.resources.0.digest', 'event_data.resources.0.tag'],
        ],
      ];
      const before = patches();
      for (const [change, fields] of cases) {
        expectError(await receive(change(good())), 422, 'validation_failed', fields);
      }
      expectError(await receive(['PUSH_ARTIFACT']), 422, 'validation_failed', ['type']);
      expect(patches()).toBe(before);
      expect((await receipts())[0]).toMatchObject({
        outcome: 'invalid',
        error: expect.stringContaining('type'),
      });
    });

    it('answers 401 to a wrong secret and records nothing', async () => {
      const count = (await receipts()).length;
      expectError(
        await receive(pushEvent(`${IMAGE}:v1`, digest('6')), 'guess'),
        401,
        'unauthorized',
      );
      expect((await receipts()).length).toBe(count);
      expect(imageOf(shopA).digest).toBe(digest('2'));
    });

    it('tells nobody of the pin itself: app.deployed comes once Flux reports the rollout', async () => {
      const pushed = digest('7');
      const res = await receive(pushEvent(`${IMAGE}:v1`, pushed)).expect(202);
      expect(res.body.data.reconciled.length).toBe(2);
      const deliveries = await t
        .request()
        .get(`/webhooks/${hook.id}/deliveries`)
        .set(bearer(owner.jwt))
        .expect(200);
      expect(
        deliveries.body.data.filter((d: { event: string }) => d.event === 'app.deployed'),
      ).toEqual([]);
    });
  });

  it('answers 502 provider_unavailable (retryable) when the apps cluster is unreachable, and records it', async () => {
    await cluster.stop();
    const res = await receive(pushEvent(`${IMAGE}:v1`, digest('8')));
    const error = expectError(res, 502, 'provider_unavailable');
    expect(error.retryable).toBe(true);
    expect((await receipts())[0]).toMatchObject({
      outcome: 'failed',
      digest: digest('8'),
      error: expect.stringMatching(/^provider_unavailable: /),
    });
  });
});
