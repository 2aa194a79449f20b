import type { AppConfig } from '@platform/core';
import { OPENSTACK_CALL_TIMEOUT_MS, SERVER_WATCH_POLL_MS } from '@platform/openstack';
import { FakeOpenStack, type TestApp } from '@platform/testing';
import { createApiTestApp } from '../support/api-app.js';
import { seedAccount, seedMember } from '../support/factories.js';
import { bearer, login, type TestAccount } from '../support/identity.js';

/** Every kind of the openstack feature. */
export const OPENSTACK_KINDS = [
  'server',
  'volume',
  'network',
  'router',
  'floating_ip',
  'load_balancer',
  'security_group',
];

export interface CloudWorld {
  t: TestApp;
  fake: FakeOpenStack;
  /** Org admin of the organization that owns `projectId` and `otherProjectId`. */
  owner: TestAccount;
  developer: TestAccount;
  viewer: TestAccount;
  /** An account of another organization, with its own project `strangerProjectId`. */
  stranger: TestAccount;
  platformJwt: string;
  /** A project with every openstack (and dns) kind granted. */
  projectId: string;
  /** A second project of the same organization, also granted. */
  otherProjectId: string;
  /** A project of the same organization with nothing granted. */
  bareProjectId: string;
  strangerProjectId: string;
  /** Grants kinds of a feature to a project (platform admin). */
  grant(projectId: string, feature: string, kinds: string[]): Promise<void>;
  /** The Keystone project id the fake holds for a platform project. */
  keystoneProjectOf(projectId: string): string | undefined;
  close(): Promise<void>;
}

/**
 * The API configured for the fake (or another replica of `shareWith`), calls timing out after
 * 2 s (on a loaded machine an answer may take over a second).
 */
export function createCloudApp(
  fake: FakeOpenStack,
  options: { shareWith?: TestApp; config?: Partial<AppConfig>; withWorker?: boolean } = {},
): Promise<TestApp> {
  return createApiTestApp({
    shareWith: options.shareWith,
    withWorker: options.withWorker,
    config: { platformAdmin: PLATFORM, openstack: fake.config(), ...options.config },
    override: (builder) =>
      builder
        .overrideProvider(OPENSTACK_CALL_TIMEOUT_MS)
        .useValue(2000)
        // With the worker's processors: servers are looked at every 100 ms, not 5 s.
        .overrideProvider(SERVER_WATCH_POLL_MS)
        .useValue(100),
  });
}

export const PLATFORM = { login: 'root@platform.example', password: 'platform admin password 1' };

/**
 * The API against a fake OpenStack, with an organization of three projects (two granted every
 * openstack and dns kind, one bare), its admin, a developer and a viewer, and a stranger
 * organization with a granted project of its own. Upstream calls time out after 2 s here.
 * `config` adds settings (e.g. `dnsResolver`); `withWorker` runs the worker's processors too.
 */
export async function createCloudWorld(
  options: { config?: Partial<AppConfig>; withWorker?: boolean } = {},
): Promise<CloudWorld> {
  const fake = await FakeOpenStack.start();
  const t = await createCloudApp(fake, options);
  // Keystone's token expiry follows the app's clock, so tests can move both.
  fake.keystone.now = () => t.clock.now().getTime();

  const owner = await seedAccount(t, 'owner@cloud.example', 'Cloud Org');
  const developer = await seedMember(t, owner, 'dev@cloud.example', 'developer');
  const viewer = await seedMember(t, owner, 'viewer@cloud.example', 'viewer');
  const stranger = await seedAccount(t, 'stranger@cloud.example', 'Stranger Org');
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
  const projectId = await project(owner, 'production');
  const otherProjectId = await project(owner, 'staging');
  const bareProjectId = await project(owner, 'bare');
  const strangerProjectId = await project(stranger, 'theirs');
  for (const id of [projectId, otherProjectId, strangerProjectId]) {
    await grant(id, 'openstack', OPENSTACK_KINDS);
    await grant(id, 'dns', ['zone', 'record', 'domain_verification']);
  }
  return {
    t,
    fake,
    owner,
    developer,
    viewer,
    stranger,
    platformJwt,
    projectId,
    otherProjectId,
    bareProjectId,
    strangerProjectId,
    grant,
    keystoneProjectOf: (id) => fake.projectIdFor(`platform-${id}`),
    close: async () => {
      await t.close();
      await fake.close();
    },
  };
}
