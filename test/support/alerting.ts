import type { TestApp } from '@platform/testing';
import { bearer, type TestAccount } from './identity.js';

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
