import type { TestApp } from '@platform/testing';
import {
  alertRoutesClient,
  alertsClient,
  ingestTokensClient,
  maintenanceWindowsClient,
  notificationEndpointsClient,
  silencesClient,
} from './alerting.js';
import {
  acknowledgementsClient,
  escalationChainsClient,
  escalationStepsClient,
} from './escalation.js';
import { createHttp, type Credential } from './http.js';
import {
  accountClient,
  invitationsClient,
  membershipsClient,
  organizationsClient,
  projectsClient,
  tokensClient,
} from './identity.js';
import {
  notificationCenterClient,
  notificationPreferencesClient,
  notificationScheduleClient,
} from './notifications.js';
import {
  overridesClient,
  rosterContactsClient,
  rosterMembersClient,
  rostersClient,
  rotationClient,
} from './oncall.js';

export { expectError, type ErrorResponse } from './expect-error.js';
export type { Credential, Loose, Wire } from './http.js';
export type { AlertListQuery, AlertmanagerAlert, AlertmanagerWebhook, Paging } from './alerting.js';
export type { NotificationListQuery, PreferencesBody, ScheduleBody } from './notifications.js';
export type { TimeWindow } from './oncall.js';

/**
 * Typed clients of the API, one per resource, bound to a test app and a credential:
 *
 *     const owner = api(t).as(ownerAccount);            // or a token, or null for nobody
 *     const route = await owner.alertRoutes(projectId).create({ priority: 10 });
 *     const res = await owner.alertRoutes(projectId).raw.create({ priority: '3' });
 *     expectError(res, 422, 'validation_failed', ['priority']);
 *
 * A method takes the body its operation documents (the DTO's shape) and resolves the `data` of
 * the documented response type (dates as strings), after asserting the documented success
 * status; it throws with the answer otherwise. The same methods under `.raw` take the body's
 * fields with values of any type and return the supertest request: awaited, the response
 * whatever its status (for refusals, `metadata` or headers); `.expect(...)` works on it too.
 */
export function api(t: TestApp) {
  return { as: (credential: Credential) => clientsFor(t, credential) };
}

export type ApiClient = ReturnType<typeof clientsFor>;

function clientsFor(t: TestApp, credential: Credential) {
  const data = createHttp(t, credential, 'data');
  const raw = createHttp(t, credential, 'raw');
  return {
    // identity
    account: () => ({ ...accountClient(data), raw: accountClient(raw) }),
    organizations: () => ({ ...organizationsClient(data), raw: organizationsClient(raw) }),
    projects: (organizationId: string) => ({
      ...projectsClient(data, organizationId),
      raw: projectsClient(raw, organizationId),
    }),
    memberships: (organizationId?: string) => ({
      ...membershipsClient(data, organizationId),
      raw: membershipsClient(raw, organizationId),
    }),
    invitations: (organizationId?: string) => ({
      ...invitationsClient(data, organizationId),
      raw: invitationsClient(raw, organizationId),
    }),
    tokens: (organizationId?: string) => ({
      ...tokensClient(data, organizationId),
      raw: tokensClient(raw, organizationId),
    }),
    // alerting
    alertRoutes: (projectId: string) => ({
      ...alertRoutesClient(data, projectId),
      raw: alertRoutesClient(raw, projectId),
    }),
    ingestTokens: (projectId: string) => ({
      ...ingestTokensClient(data, projectId),
      raw: ingestTokensClient(raw, projectId),
    }),
    alerts: (projectId: string) => ({
      ...alertsClient(data, projectId),
      raw: alertsClient(raw, projectId),
    }),
    silences: (projectId: string, alertId: string) => ({
      ...silencesClient(data, projectId, alertId),
      raw: silencesClient(raw, projectId, alertId),
    }),
    maintenanceWindows: (projectId: string) => ({
      ...maintenanceWindowsClient(data, projectId),
      raw: maintenanceWindowsClient(raw, projectId),
    }),
    notificationEndpoints: (projectId: string) => ({
      ...notificationEndpointsClient(data, projectId),
      raw: notificationEndpointsClient(raw, projectId),
    }),
    // escalation
    escalationChains: (projectId: string) => ({
      ...escalationChainsClient(data, projectId),
      raw: escalationChainsClient(raw, projectId),
    }),
    escalationSteps: (projectId: string, chainId: string) => ({
      ...escalationStepsClient(data, projectId, chainId),
      raw: escalationStepsClient(raw, projectId, chainId),
    }),
    acknowledgements: (projectId: string) => ({
      ...acknowledgementsClient(data, projectId),
      raw: acknowledgementsClient(raw, projectId),
    }),
    // on-call rosters
    rosters: (projectId: string) => ({
      ...rostersClient(data, projectId),
      raw: rostersClient(raw, projectId),
    }),
    rosterMembers: (projectId: string, rosterId: string) => ({
      ...rosterMembersClient(data, projectId, rosterId),
      raw: rosterMembersClient(raw, projectId, rosterId),
    }),
    rosterContacts: (projectId: string, rosterId: string) => ({
      ...rosterContactsClient(data, projectId, rosterId),
      raw: rosterContactsClient(raw, projectId, rosterId),
    }),
    rotation: (projectId: string, rosterId: string) => ({
      ...rotationClient(data, projectId, rosterId),
      raw: rotationClient(raw, projectId, rosterId),
    }),
    overrides: (projectId: string, rosterId: string) => ({
      ...overridesClient(data, projectId, rosterId),
      raw: overridesClient(raw, projectId, rosterId),
    }),
    // notifications
    notificationCenter: () => ({
      ...notificationCenterClient(data),
      raw: notificationCenterClient(raw),
    }),
    notificationPreferences: () => ({
      ...notificationPreferencesClient(data),
      raw: notificationPreferencesClient(raw),
    }),
    notificationSchedule: () => ({
      ...notificationScheduleClient(data),
      raw: notificationScheduleClient(raw),
    }),
  };
}
