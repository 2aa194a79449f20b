import type { AppConfig } from '@platform/core';
import { RGW_CALL_TIMEOUT_MS } from '@platform/object-storage';
import { FakeRgw, type TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { bearer, login, type TestAccount } from '../support/identity.js';

export const PLATFORM = { login: 'root@platform.example', password: 'platform admin password 1' };
export const DEFAULT_QUOTA = { max_size_kb: 524288000, enabled: true };

export interface StorageWorld {
  t: TestApp;
  fake: FakeRgw;
  /** Org admin of the organization owning `projectId`, `otherProjectId` and `bareProjectId`. */
  owner: TestAccount;
  developer: TestAccount;
  /** Operators have rgw read, create and update, not delete. */
  operator: TestAccount;
  viewer: TestAccount;
  /** The admin of another organization, with its own granted project. */
  stranger: TestAccount;
  platformJwt: string;
  /** A project with the object_storage kinds user and bucket granted. */
  projectId: string;
  /** A second granted project of the same organization. */
  otherProjectId: string;
  /** A project of the same organization with nothing granted. */
  bareProjectId: string;
  strangerProjectId: string;
  /** The RGW tenant of the owner's organization: `org<uuid without dashes>`. */
  tenant: string;
  grant(projectId: string, kinds: string[]): Promise<void>;
  /** Creates a user through the API (201) and answers its `data`. */
  createUser(name: string, options?: { jwt?: string; projectId?: string }): Promise<RgwUserData>;
  close(): Promise<void>;
}

export interface RgwUserData {
  id: string;
  name: string;
  uid: string;
  access_key: string;
  secret_key?: string;
  quota: { max_size_kb: number; enabled: boolean };
  buckets_total_size_kb: number;
  locked: boolean;
  created_at: string;
}

/** The API against `fake`, RGW calls timing out after 1 s. */
export function createStorageApp(
  fake: FakeRgw,
  config: Partial<AppConfig> = {},
  shareWith?: TestApp,
): Promise<TestApp> {
  return createApiTestApp({
    shareWith,
    config: { platformAdmin: PLATFORM, rgw: fake.config(), ...config },
    override: (builder) => builder.overrideProvider(RGW_CALL_TIMEOUT_MS).useValue(1000),
  });
}

/**
 * The API against a fake RGW, with an organization of three projects (two granted the
 * object_storage kinds, one bare), its admin, a developer, an operator and a viewer, another
 * organization with a granted project, and the platform admin.
 */
export async function createStorageWorld(): Promise<StorageWorld> {
  const fake = await FakeRgw.start();
  const t = await createStorageApp(fake);
  const owner = await seedAccount(t, 'owner@storage.example', 'Storage Org');
  const developer = await seedMember(t, owner, 'dev@storage.example', 'developer');
  const operator = await seedMember(t, owner, 'ops@storage.example', 'operator');
  const viewer = await seedMember(t, owner, 'viewer@storage.example', 'viewer');
  const stranger = await seedAccount(t, 'stranger@storage.example', 'Stranger Org');
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
  const grant = async (projectId: string, kinds: string[]) => {
    await t
      .request()
      .put(
        `/organizations/${organizationOf.get(projectId)}/projects/${projectId}/feature-grants/object_storage`,
      )
      .set(bearer(platformJwt))
      .send({ approved_configuration: { allowed_kinds: kinds } })
      .expect(200);
  };
  const projectId = await project(owner, 'production');
  const otherProjectId = await project(owner, 'staging');
  const bareProjectId = await project(owner, 'bare');
  const strangerProjectId = await project(stranger, 'theirs');
  for (const id of [projectId, otherProjectId, strangerProjectId]) {
    await grant(id, ['user', 'bucket']);
  }
  const createUser: StorageWorld['createUser'] = async (name, options = {}) =>
    (
      await t
        .request()
        .post(`/rgw/users?project_id=${options.projectId ?? projectId}`)
        .set(bearer(options.jwt ?? owner.jwt))
        .send({ name })
        .expect(201)
    ).body.data as RgwUserData;
  return {
    t,
    fake,
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
    tenant: `org${owner.organizationId.replace(/-/g, '')}`,
    grant,
    createUser,
    close: async () => {
      await t.close();
      await fake.close();
    },
  };
}
