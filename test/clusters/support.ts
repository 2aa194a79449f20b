import {
  GARDEN_CALL_TIMEOUT_MS,
  GARDEN_PROJECT_READY_TIMEOUT_MS,
  gardenProjectName,
} from '@platform/clusters';
import type { AppConfig } from '@platform/core';
import type { TestApp } from '@platform/testing';
import { type ApiTestAppOptions, createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { bearer, login, type TestAccount } from '../support/identity.js';
import { FakeGarden } from './gardener-fixtures.js';

export const PLATFORM = { login: 'root@platform.example', password: 'platform admin password 1' };

export interface ClusterWorld {
  t: TestApp;
  garden: FakeGarden;
  /** Org admin of the organization that owns `projectId`, `otherProjectId` and `bareProjectId`. */
  owner: TestAccount;
  developer: TestAccount;
  operator: TestAccount;
  viewer: TestAccount;
  /** An account of another organization, with its own granted project `strangerProjectId`. */
  stranger: TestAccount;
  platformJwt: string;
  /** Projects with the kubernetes kind `cluster` granted. */
  projectId: string;
  otherProjectId: string;
  /** A project of the same organization with nothing granted. */
  bareProjectId: string;
  strangerProjectId: string;
  /** A new granted project of the owner's organization. */
  newProject(name: string): Promise<string>;
  /** Grants kinds of a feature to a project (a platform admin: kubernetes is provisioned-tier). */
  grant(projectId: string, feature: string, kinds: string[]): Promise<void>;
  /** The namespace of a platform project's Gardener project. */
  namespaceOf(projectId: string): string;
  close(): Promise<void>;
}

/** How the API test app runs besides its routes: with the worker's processors or watches. */
export type ClusterAppExtras = Pick<ApiTestAppOptions, 'withWorker' | 'imports'>;

/** The API against the fake garden (or another replica of `shareWith`), calls timing out after 2 s. */
export function createClusterApp(
  garden: FakeGarden,
  options: { shareWith?: TestApp; config?: Partial<AppConfig> } & ClusterAppExtras = {},
): Promise<TestApp> {
  return createApiTestApp({
    shareWith: options.shareWith,
    withWorker: options.withWorker,
    imports: options.imports,
    config: { platformAdmin: PLATFORM, gardenKubeconfig: garden.kubeconfigPath, ...options.config },
    override: (builder) =>
      builder
        .overrideProvider(GARDEN_CALL_TIMEOUT_MS)
        .useValue(2000)
        .overrideProvider(GARDEN_PROJECT_READY_TIMEOUT_MS)
        .useValue(1000),
  });
}

/** A create body the default cloud profile accepts. */
export function clusterBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'prod',
    kubernetes_version: '1.31.2',
    cloud_profile: 'openstack-eu',
    region: 'eu-de-1',
    workers: [{ name: 'default', machine_type: 'm1.large', minimum: 1, maximum: 3 }],
    ...extra,
  };
}

/**
 * The API against a fake garden, with an organization of three projects (two granted the
 * kubernetes kind `cluster`, one bare), its admin, a developer, an operator and a viewer, and a
 * stranger organization with a granted project of its own.
 */
export async function createClusterWorld(extras: ClusterAppExtras = {}): Promise<ClusterWorld> {
  const garden = await FakeGarden.start();
  const t = await createClusterApp(garden, extras);
  const owner = await seedAccount(t, 'owner@k8s.example', 'Cluster Org');
  const developer = await seedMember(t, owner, 'dev@k8s.example', 'developer');
  const operator = await seedMember(t, owner, 'ops@k8s.example', 'operator');
  const viewer = await seedMember(t, owner, 'viewer@k8s.example', 'viewer');
  const stranger = await seedAccount(t, 'stranger@k8s.example', 'Stranger Org');
  const platformJwt = await login(t, PLATFORM.login, PLATFORM.password);
  const organizationOf = new Map<string, string>();
  const project = async (account: TestAccount, name: string) => {
    const id = (
      await t
        .request()
        .post(`/organizations/${account.organizationId}/projects`)
        .set(bearer(account.jwt))
        .send({ name })
        .expect(201)
    ).body.data.id as string;
    organizationOf.set(id, account.organizationId);
    return id;
  };
  const grant = async (projectId: string, feature: string, kinds: string[]) => {
    const org = organizationOf.get(projectId)!;
    await t
      .request()
      .put(`/organizations/${org}/projects/${projectId}/feature-grants/${feature}`)
      .set(bearer(platformJwt))
      .send({ approved_configuration: { allowed_kinds: kinds } })
      .expect(200);
  };
  const newProject = async (name: string) => {
    const id = await project(owner, name);
    await grant(id, 'kubernetes', ['cluster']);
    return id;
  };
  const projectId = await newProject('production');
  const otherProjectId = await newProject('staging');
  const bareProjectId = await project(owner, 'bare');
  const strangerProjectId = await project(stranger, 'theirs');
  await grant(strangerProjectId, 'kubernetes', ['cluster']);
  return {
    t,
    garden,
    owner,
    developer,
    operator,
    viewer,
    stranger,
    platformJwt,
    projectId,
    otherProjectId,
    bareProjectId,
    strangerProjectId,
    newProject,
    grant,
    namespaceOf: (id) => `garden-${gardenProjectName(id)}`,
    close: async () => {
      await t.close();
      await garden.stop();
    },
  };
}
