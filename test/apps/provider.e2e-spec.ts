import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { appNamespace, HelmReleaseKind, NamespaceKind, workspaceNamespace } from '@platform/apps';
import type { KubeObject } from '@platform/kube';
import { closedLocalPort, expectEventually, type TestApp } from '@platform/testing';
import { bearer } from '../support/identity.js';
import {
  type AppsWorld,
  createAppsApp,
  createAppsWorld,
  kubeconfigFile,
  releaseOf,
  VALUES,
} from './support.js';

/** The apps cluster as a provider: unset, unreachable, shared by replicas, and namespaces. */
describe('apps and workspaces: the apps cluster', () => {
  let w: AppsWorld;
  const calls = (t: TestApp, jwt = w.owner.jwt) => ({
    listApps: () => t.request().get(`/apps?project_id=${w.projectId}`).set(bearer(jwt)),
    showApp: () =>
      t.request().get(`/apps/${w.projectId}?project_id=${w.projectId}`).set(bearer(jwt)),
    createApp: () =>
      t.request().post('/apps').set(bearer(jwt)).send({
        project_id: w.projectId,
        name: 'web',
        kind: 'container',
        values: VALUES.container,
      }),
    listWorkspaces: () => t.request().get('/workspaces').set(bearer(jwt)),
    createWorkspace: () =>
      t.request().post('/workspaces').set(bearer(jwt)).send({ name: 'ws', profile: 'testing' }),
  });

  beforeAll(async () => {
    w = await createAppsWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('answers 503 provider_not_configured on every route when APPS_KUBECONFIG is unset', async () => {
    const unset = await createAppsApp(null, w.t);
    try {
      for (const call of Object.values(calls(unset))) {
        const res = await call();
        expect([res.status, res.body.code, res.body.retryable]).toEqual([
          503,
          'provider_not_configured',
          false,
        ]);
        expect(res.body.message).toContain('APPS_KUBECONFIG');
      }
      // Access is checked first: a viewer's create is refused as such.
      expect((await calls(unset, w.viewer.jwt).createApp()).body.code).toBe('forbidden');
    } finally {
      await unset.close();
    }
  });

  it('answers 502 provider_unavailable, retryable, when the cluster cannot be reached', async () => {
    const port = await closedLocalPort();
    const kubeconfig = await kubeconfigFile(
      w.kube.kubeconfigYaml().replace(w.kube.url, `http://127.0.0.1:${port}`),
    );
    const unreachable = await createAppsApp(kubeconfig.path, w.t);
    try {
      for (const call of Object.values(calls(unreachable))) {
        const res = await call();
        expect([res.status, res.body.code, res.body.retryable]).toEqual([
          502,
          'provider_unavailable',
          true,
        ]);
      }
    } finally {
      await unreachable.close();
      await kubeconfig.rm();
    }
  });

  it('answers 502 for a kubeconfig file that cannot be read', async () => {
    const broken = await createAppsApp('/nonexistent/apps-kubeconfig', w.t);
    try {
      const res = await calls(broken).listApps();
      expect([res.status, res.body.code]).toEqual([502, 'provider_unavailable']);
    } finally {
      await broken.close();
    }
  });

  it('before its cache has synced a replica lists with one LIST of the namespace, never a call per app', async () => {
    for (const name of ['one', 'two', 'three']) {
      await w.t
        .request()
        .post('/apps')
        .set(bearer(w.owner.jwt))
        .send({ project_id: w.projectId, name, kind: 'nextcloud', values: VALUES.nextcloud })
        .expect(201);
    }
    const watchesBefore = w.kube.openWatches;
    const replica = await createAppsApp(w.t.config.appsKubeconfig, w.t);
    try {
      w.kube.clearRequests();
      const res = await calls(replica).listApps().expect(200);
      expect(res.body.data.map((a: { name: string }) => a.name)).toEqual(['one', 'three', 'two']);
      const reads = w.kube.requests.filter(
        (r) => r.kind === 'HelmRelease' && r.method === 'GET' && !r.query.watch,
      );
      // The replica's own LIST, and the informer it started: one for the whole cluster.
      expect(reads.filter((r) => r.namespace === appNamespace(w.projectId))).toHaveLength(1);
      expect(reads.filter((r) => r.namespace === undefined)).toHaveLength(1);
      expect(reads.filter((r) => r.name !== undefined)).toEqual([]);
      await expectEventually(() => expect(w.kube.openWatches).toBe(watchesBefore + 1));
    } finally {
      await replica.close();
    }
    // Its informer stopped with it.
    await expectEventually(() => expect(w.kube.openWatches).toBe(watchesBefore));
  });

  it('refuses a namespace of the same name that belongs to another tenant (409), and adopts one without a tenant', async () => {
    const namespace = appNamespace(w.otherProjectId);
    w.kube.put(NamespaceKind, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: namespace,
        labels: { 'platform.neutral.com/project-id': `${w.otherProjectId.slice(0, 8)}-other` },
      },
    });
    const res = await w.t
      .request()
      .post('/apps')
      .set(bearer(w.owner.jwt))
      .send({
        project_id: w.otherProjectId,
        name: 'web',
        kind: 'container',
        values: VALUES.container,
      })
      .expect(409);
    expect(res.body.code).toBe('conflict');
    expect(releaseOf(w, 'web', w.otherProjectId)).toBeUndefined();

    w.kube.put(NamespaceKind, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    await w.t
      .request()
      .post('/apps')
      .set(bearer(w.owner.jwt))
      .send({
        project_id: w.otherProjectId,
        name: 'web',
        kind: 'container',
        values: VALUES.container,
      })
      .expect(201);
    expect(w.kube.get<KubeObject>(NamespaceKind, undefined, namespace)?.metadata.labels).toEqual({
      'platform.neutral.com/organization-id': w.owner.organizationId,
      'platform.neutral.com/project-id': w.otherProjectId,
    });
    expect(w.kube.get(HelmReleaseKind, namespace, 'web')).toBeDefined();
  });

  it("refuses a workspace namespace of another organization's (409)", async () => {
    const namespace = workspaceNamespace(w.stranger.organizationId);
    w.kube.put(NamespaceKind, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: namespace,
        labels: { 'platform.neutral.com/organization-id': w.owner.organizationId },
      },
    });
    const res = await calls(w.t, w.stranger.jwt).createWorkspace().expect(409);
    expect(res.body.code).toBe('conflict');
  });
});
