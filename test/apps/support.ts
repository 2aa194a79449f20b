import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import {
  appNamespace,
  AppReleases,
  GroupwareProfileKind,
  type HelmRelease,
  HelmReleaseKind,
} from '@platform/apps';
import { type KindRef, KubeClient, type KubeObject } from '@platform/kube';
import { expectEventually, FakeKubeApiServer, type TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { bearer, login, type TestAccount } from '../support/identity.js';
import { APPS_CLUSTER_CRDS } from './crds.js';

export const APP_KINDS = ['container', 'wordpress', 'nextcloud', 'static_site'];
export const PLATFORM = { login: 'root@apps.example', password: 'platform admin password 1' };

const CRD_KIND: KindRef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

/** A fake apps cluster: Flux's and the groupware operator's kinds, two groupware profiles. */
export async function startAppsCluster(): Promise<FakeKubeApiServer> {
  const server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 200 });
  const client = KubeClient.fromKubeConfig(server.kubeConfig());
  for (const crd of APPS_CLUSTER_CRDS) await client.create(CRD_KIND, crd as unknown as KubeObject);
  for (const name of ['production', 'testing']) {
    server.put(GroupwareProfileKind, {
      apiVersion: 'k8s.neutral.com/v1alpha1',
      kind: 'GroupwareProfile',
      metadata: { name },
      spec: { description: name },
    });
  }
  return server;
}

/** A kubeconfig file for APPS_KUBECONFIG, in a directory of its own; remove it with `rm`. */
export async function kubeconfigFile(yaml: string): Promise<{ path: string; rm(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'apps-kubeconfig-'));
  const path = join(directory, 'kubeconfig');
  await writeFile(path, yaml);
  return { path, rm: () => rm(directory, { recursive: true, force: true }) };
}

export interface AppsWorld {
  t: TestApp;
  kube: FakeKubeApiServer;
  /** Org admin of the organization of `projectId`, `otherProjectId` and `bareProjectId`. */
  owner: TestAccount;
  developer: TestAccount;
  operator: TestAccount;
  viewer: TestAccount;
  billing: TestAccount;
  /** The admin of another organization, with its project `strangerProjectId`. */
  stranger: TestAccount;
  platformJwt: string;
  /** Every app kind granted. */
  projectId: string;
  otherProjectId: string;
  /** Nothing granted. */
  bareProjectId: string;
  strangerProjectId: string;
  grant(projectId: string, kinds: string[]): Promise<void>;
  /** Sets the organization's apps Limit (platform admin); null is unbounded. */
  limit(organizationId: string, kinds: string[] | null): Promise<void>;
  close(): Promise<void>;
}

/**
 * The API with APPS_KUBECONFIG at `kubeconfigPath` (null: unset); with `shareWith`, another
 * replica of that app (its database, its accounts), to be closed first.
 */
export async function createAppsApp(
  kubeconfigPath: string | null,
  shareWith?: TestApp,
): Promise<TestApp> {
  return createApiTestApp({
    shareWith,
    config: { platformAdmin: PLATFORM, appsKubeconfig: kubeconfigPath },
  });
}

/**
 * The API and a fake apps cluster, with an organization of three projects (two granted every
 * app kind, one bare), its admin and a member of every other role, and a stranger
 * organization with a granted project of its own.
 */
export async function createAppsWorld(): Promise<AppsWorld> {
  const kube = await startAppsCluster();
  const kubeconfig = await kubeconfigFile(kube.kubeconfigYaml());
  const t = await createAppsApp(kubeconfig.path);
  const owner = await seedAccount(t, 'owner@apps.example', 'Apps Org');
  const member = (email: string, role: 'developer' | 'operator' | 'viewer' | 'billing_manager') =>
    seedMember(t, owner, email, role);
  const developer = await member('dev@apps.example', 'developer');
  const operator = await member('ops@apps.example', 'operator');
  const viewer = await member('viewer@apps.example', 'viewer');
  const billing = await member('billing@apps.example', 'billing_manager');
  const stranger = await seedAccount(t, 'stranger@apps.example', 'Stranger Org');
  const platformJwt = await login(t, PLATFORM.login, PLATFORM.password);
  const organizationOf = new Map<string, TestAccount>();
  const project = async (account: TestAccount, name: string) => {
    const res = await t
      .request()
      .post(`/organizations/${account.organizationId}/projects`)
      .set(bearer(account.jwt))
      .send({ name })
      .expect(201);
    organizationOf.set(res.body.data.id as string, account);
    return res.body.data.id as string;
  };
  const grant = async (projectId: string, kinds: string[]) => {
    const admin = organizationOf.get(projectId)!;
    await t
      .request()
      .put(`/organizations/${admin.organizationId}/projects/${projectId}/feature-grants/apps`)
      .set(bearer(admin.jwt))
      .send({ approved_configuration: { allowed_kinds: kinds } })
      .expect(200);
  };
  const limit = async (organizationId: string, kinds: string[] | null) => {
    await t
      .request()
      .put(`/admin/organizations/${organizationId}/features/apps`)
      .set(bearer(platformJwt))
      .send({ ceiling_configuration: kinds === null ? null : { allowed_kinds: kinds } })
      .expect(200);
  };
  const projectId = await project(owner, 'production');
  const otherProjectId = await project(owner, 'staging');
  const bareProjectId = await project(owner, 'bare');
  const strangerProjectId = await project(stranger, 'theirs');
  for (const id of [projectId, otherProjectId, strangerProjectId]) await grant(id, APP_KINDS);
  return {
    t,
    kube,
    owner,
    developer,
    operator,
    viewer,
    billing,
    stranger,
    platformJwt,
    projectId,
    otherProjectId,
    bareProjectId,
    strangerProjectId,
    grant,
    limit,
    close: async () => {
      await t.close();
      await kube.stop();
      await kubeconfig.rm();
    },
  };
}

/** Valid values of each kind. */
export const VALUES: Record<string, Record<string, unknown>> = {
  container: { image: 'registry.example.com/shop/web:1.4.2', port: 8080, host: 'shop.example.com' },
  wordpress: { host: 'blog.example.com', blog_name: 'Our blog' },
  nextcloud: { host: 'files.example.com' },
  static_site: { host: 'www.example.com', git_repository: 'https://git.example.com/me/site.git' },
};

/** The HelmRelease of an app, straight from the fake cluster. */
export function releaseOf(w: AppsWorld, name: string, projectId = w.projectId) {
  return w.kube.get<HelmRelease>(HelmReleaseKind, appNamespace(projectId), name);
}

/** What Flux does: reconciles the release's current generation to a Ready condition. */
export function reconcile(
  w: AppsWorld,
  name: string,
  ready: 'True' | 'False' | 'Unknown',
  options: { projectId?: string; at?: string; message?: string } = {},
): void {
  const release = releaseOf(w, name, options.projectId)!;
  w.kube.put(HelmReleaseKind, {
    ...release,
    status: {
      observedGeneration: release.metadata.generation,
      conditions: [
        {
          type: 'Ready',
          status: ready,
          reason: { True: 'UpgradeSucceeded', False: 'InstallFailed', Unknown: 'Progressing' }[
            ready
          ],
          message: options.message ?? 'Helm reported',
          lastTransitionTime: options.at ?? '2024-05-01T10:00:00Z',
        },
      ],
    },
  });
}

/** Waits until the API process reads apps from its cache (started by the first read). */
export async function cacheSynced(w: AppsWorld): Promise<void> {
  await w.t.request().get(`/apps?project_id=${w.projectId}`).set(bearer(w.owner.jwt)).expect(200);
  await expectEventually(() => expect(w.t.get(AppReleases).synced).toBe(true));
}

/** Waits until the API's cache holds the release as the cluster has it now. */
export async function cached(w: AppsWorld, name: string, projectId = w.projectId): Promise<void> {
  await cacheSynced(w);
  const namespace = appNamespace(projectId);
  const version = releaseOf(w, name, projectId)?.metadata.resourceVersion;
  await w.t
    .get(AppReleases)
    .settled((cache) => cache.get(namespace, name)?.metadata.resourceVersion === version);
}
