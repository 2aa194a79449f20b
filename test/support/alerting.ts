import type { SmtpSink, TestApp } from '@platform/testing';
import { addMember, bearer, createAccount, type TestAccount } from './identity.js';

/** Creates a project in the admin's organization, without the alerts capability. */
export async function createProject(t: TestApp, admin: TestAccount, name: string): Promise<string> {
  const project = await t
    .request()
    .post(`/organizations/${admin.organizationId}/projects`)
    .set(bearer(admin.jwt))
    .send({ name })
    .expect(201);
  return project.body.data.id as string;
}

/** Creates a project in the admin's organization, with the alerts capability granted. */
export async function alertsProject(
  t: TestApp,
  admin: TestAccount,
  name = 'production',
): Promise<string> {
  const projectId = await createProject(t, admin, name);
  await grantAlerts(t, admin, projectId);
  return projectId;
}

/** Grants the alerts capability (every kind the Limit allows) to a project. */
export async function grantAlerts(
  t: TestApp,
  admin: TestAccount,
  projectId: string,
): Promise<void> {
  await t
    .request()
    .put(`/organizations/${admin.organizationId}/projects/${projectId}/feature-grants/alerts`)
    .set(bearer(admin.jwt))
    .send({ approved_configuration: { allowed_kinds: null } })
    .expect(200);
}

/** The cast of an alerting access test: one organization's members, an outsider, three projects. */
export interface AlertingTeam {
  owner: TestAccount;
  developer: TestAccount;
  /** a developer whose alerts permission lacks delete (read, create, update) */
  restricted: TestAccount;
  viewer: TestAccount;
  /** an admin of another organization */
  stranger: TestAccount;
  /** with the alerts capability */
  projectId: string;
  /** another project of the same organization, with the alerts capability */
  otherProjectId: string;
  /** a project without the alerts capability */
  bareProjectId: string;
}

export async function alertingTeam(
  t: TestApp & { sink: SmtpSink },
  organization: string,
): Promise<AlertingTeam> {
  const owner = await createAccount(t, t.sink, 'owner@example.com', organization);
  const developer = await addMember(t, t.sink, owner, 'dev@example.com', 'developer');
  const restricted = await addMember(t, t.sink, owner, 'restricted@example.com', 'developer');
  const viewer = await addMember(t, t.sink, owner, 'viewer@example.com', 'viewer');
  const stranger = await createAccount(t, t.sink, 'stranger@example.com', 'Stranger Org');
  const memberships = await t
    .request()
    .get(`/memberships?organization_id=${owner.organizationId}`)
    .set(bearer(owner.jwt))
    .expect(200);
  const membership = (memberships.body.data as Array<{ id: string; account_id: string }>).find(
    (m) => m.account_id === restricted.accountId,
  )!;
  await t
    .request()
    .patch(`/memberships/${membership.id}`)
    .set(bearer(owner.jwt))
    .send({ permissions: { alerts: ['read', 'create', 'update'] } })
    .expect(200);
  return {
    owner,
    developer,
    restricted,
    viewer,
    stranger,
    projectId: await alertsProject(t, owner, 'production'),
    otherProjectId: await alertsProject(t, owner, 'staging'),
    bareProjectId: await createProject(t, owner, 'no-alerts'),
  };
}
