import type {
  AccountResponseDto,
  InvitationAcceptedResponseDto,
  InvitationDeclinedResponseDto,
  InvitationDetailsResponseDto,
  InvitationResponseDto,
  MembershipResponseDto,
  MintedTokenResponseDto,
  OrganizationResponseDto,
  ProjectResponseDto,
  TokenResponseDto,
} from '../../../libs/identity/src/identity.openapi.js';
import type {
  AcceptInvitationBody,
  CreateInvitationBody,
} from '../../../libs/identity/src/invitations/invitations.dto.js';
import type {
  CreateProjectBody,
  UpdateMembershipBody,
} from '../../../libs/identity/src/organizations/organizations.dto.js';
import type { CreateTokenBody } from '../../../libs/identity/src/tokens/tokens.dto.js';
import { type Http, type Input, type Mode, segment } from './http.js';

/**
 * Account-wide routes that act in one organization take it as `organization_id`; omitted, the
 * caller's only organization.
 */
const inOrganization = (organizationId?: string) => ({ organization_id: organizationId });

/** `GET /accounts/me`. */
export function accountClient<M extends Mode>(http: Http<M>) {
  return {
    me: () => http.get<AccountResponseDto>('/accounts/me'),
  };
}

/** `GET /organizations`: the caller's organizations. */
export function organizationsClient<M extends Mode>(http: Http<M>) {
  return {
    list: () => http.get<OrganizationResponseDto[]>('/organizations'),
  };
}

/** `/organizations/{org_id}/projects`. */
export function projectsClient<M extends Mode>(http: Http<M>, organizationId: string) {
  const base = `/organizations/${segment(organizationId)}/projects`;
  return {
    list: () => http.get<ProjectResponseDto[]>(base),
    create: (body: Input<M, CreateProjectBody>) => http.post<ProjectResponseDto>(base, body, 201),
    show: (id: string) => http.get<ProjectResponseDto>(`${base}/${segment(id)}`),
  };
}

/** `/memberships` of one organization. */
export function membershipsClient<M extends Mode>(http: Http<M>, organizationId?: string) {
  const query = inOrganization(organizationId);
  return {
    list: () => http.get<MembershipResponseDto[]>('/memberships', query),
    show: (id: string) => http.get<MembershipResponseDto>(`/memberships/${segment(id)}`, query),
    update: (id: string, body: Input<M, UpdateMembershipBody>) =>
      http.patch<MembershipResponseDto>(`/memberships/${segment(id)}`, body, query),
    delete: (id: string) => http.delete(`/memberships/${segment(id)}`, 204, query),
  };
}

/** `/invitations` into one organization, and answering one by its token (`/invite/{token}`). */
export function invitationsClient<M extends Mode>(http: Http<M>, organizationId?: string) {
  const invite = (token: string) => `/invite/${segment(token)}`;
  return {
    create: (body: Input<M, CreateInvitationBody>) =>
      http.post<InvitationResponseDto>('/invitations', body, 201, inOrganization(organizationId)),
    show: (token: string) => http.get<InvitationDetailsResponseDto>(invite(token)),
    details: (token: string) =>
      http.get<InvitationDetailsResponseDto>('/invitations/details', { token }),
    accept: (token: string, body?: Input<M, AcceptInvitationBody>) =>
      http.patch<InvitationAcceptedResponseDto>(`${invite(token)}/accept`, body),
    decline: (token: string) =>
      http.patch<InvitationDeclinedResponseDto>(`${invite(token)}/decline`, undefined),
  };
}

/** Static API tokens: `/tokens` (of one organization) and `/organizations/{id}/api_tokens`. */
export function tokensClient<M extends Mode>(http: Http<M>, organizationId?: string) {
  const query = inOrganization(organizationId);
  return {
    list: () => http.get<TokenResponseDto[]>('/tokens', query),
    create: (body: Input<M, CreateTokenBody>) =>
      http.post<MintedTokenResponseDto>('/tokens', body, 201, query),
    createForOrganization: (orgId: string, body: Input<M, CreateTokenBody>) =>
      http.post<MintedTokenResponseDto>(`/organizations/${segment(orgId)}/api_tokens`, body, 201),
    revoke: (id: string) => http.delete(`/tokens/${segment(id)}`),
  };
}
