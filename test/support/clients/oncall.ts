import type {
  AddMemberBody,
  CreateOverrideBody,
  CreatePhoneContactBody,
  CreateRosterBody,
  MoveMemberBody,
  PutRotationBody,
  UpdatePhoneContactBody,
  UpdateRosterBody,
} from '../../../libs/oncall/src/rosters/rosters.dto.js';
import type {
  OnCallOverride,
  OnCallRoster,
  OnCallRosterMember,
  OnCallRosterPhoneContact,
  OnCallRotation,
  OnCallShift,
} from '../../../libs/oncall/src/rosters/rosters.openapi.js';
import { type Http, type Input, type Mode, segment } from './http.js';

/** A window of time, ISO 8601 date-times with an offset; `to` is exclusive. */
export interface TimeWindow {
  from?: string;
  to?: string;
}

const rostersPath = (projectId: string) => `/projects/${segment(projectId)}/on_call_rosters`;
const rosterPath = (projectId: string, rosterId: string) =>
  `${rostersPath(projectId)}/${segment(rosterId)}`;

/** `/projects/{project_id}/on_call_rosters` and the computed shifts of one. */
export function rostersClient<M extends Mode>(http: Http<M>, projectId: string) {
  const base = rostersPath(projectId);
  const one = (id: string) => rosterPath(projectId, id);
  return {
    list: () => http.get<OnCallRoster[]>(base),
    create: (body: Input<M, CreateRosterBody>) => http.post<OnCallRoster>(base, body, 201),
    show: (id: string) => http.get<OnCallRoster>(one(id)),
    update: (id: string, body: Input<M, UpdateRosterBody>) =>
      http.patch<OnCallRoster>(one(id), body),
    delete: (id: string) => http.delete(one(id)),
    shifts: (id: string, window: TimeWindow = {}) =>
      http.get<OnCallShift[]>(`${one(id)}/shifts`, { ...window }),
  };
}

/** `.../on_call_rosters/{id}/on_call_roster_members`, in rotation order. */
export function rosterMembersClient<M extends Mode>(
  http: Http<M>,
  projectId: string,
  rosterId: string,
) {
  const base = `${rosterPath(projectId, rosterId)}/on_call_roster_members`;
  return {
    list: () => http.get<OnCallRosterMember[]>(base),
    add: (body: Input<M, AddMemberBody>) => http.post<OnCallRosterMember>(base, body, 201),
    move: (id: string, body: Input<M, MoveMemberBody>) =>
      http.patch<OnCallRosterMember>(`${base}/${segment(id)}`, body),
    delete: (id: string) => http.delete(`${base}/${segment(id)}`),
  };
}

/** `.../on_call_rosters/{id}/on_call_roster_phone_contacts`. */
export function rosterContactsClient<M extends Mode>(
  http: Http<M>,
  projectId: string,
  rosterId: string,
) {
  const base = `${rosterPath(projectId, rosterId)}/on_call_roster_phone_contacts`;
  const one = (id: string) => `${base}/${segment(id)}`;
  return {
    list: () => http.get<OnCallRosterPhoneContact[]>(base),
    create: (body: Input<M, CreatePhoneContactBody>) =>
      http.post<OnCallRosterPhoneContact>(base, body, 201),
    show: (id: string) => http.get<OnCallRosterPhoneContact>(one(id)),
    update: (id: string, body: Input<M, UpdatePhoneContactBody>) =>
      http.patch<OnCallRosterPhoneContact>(one(id), body),
    delete: (id: string) => http.delete(one(id)),
  };
}

/** `.../on_call_rosters/{id}/rotation`: at most one per roster, replaced whole by PUT. */
export function rotationClient<M extends Mode>(http: Http<M>, projectId: string, rosterId: string) {
  const path = `${rosterPath(projectId, rosterId)}/rotation`;
  return {
    show: () => http.get<OnCallRotation>(path),
    put: (body: Input<M, PutRotationBody>) => http.put<OnCallRotation>(path, body),
    delete: () => http.delete(path),
  };
}

/** `.../on_call_rosters/{id}/on_call_overrides`. */
export function overridesClient<M extends Mode>(
  http: Http<M>,
  projectId: string,
  rosterId: string,
) {
  const base = `${rosterPath(projectId, rosterId)}/on_call_overrides`;
  const one = (id: string) => `${base}/${segment(id)}`;
  return {
    list: (window: TimeWindow = {}) => http.get<OnCallOverride[]>(base, { ...window }),
    create: (body: Input<M, CreateOverrideBody>) => http.post<OnCallOverride>(base, body, 201),
    show: (id: string) => http.get<OnCallOverride>(one(id)),
    delete: (id: string) => http.delete(one(id)),
  };
}
