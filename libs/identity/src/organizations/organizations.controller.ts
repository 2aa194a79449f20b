import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@platform/audit';
import { ApiData, ApiErrors, Clock, type ErrorDoc, IdParam as Id } from '@platform/core';
import { Authenticated } from '../access/authenticated.decorator.js';
import {
  confinementOf,
  CurrentPrincipal,
  organizationOf,
  type Principal,
} from '../access/principal.js';
import { RequestActor } from '../audit/request-actor.js';
import {
  ACCOUNT_SESSION_ERRORS,
  ACCOUNT_TOKEN_ERRORS,
  CSRF_ERROR,
  invalidDoc,
  ORGANIZATION_ACCESS_ERRORS,
  PERMISSION_ROUTE_ERRORS,
  organizationNotFoundDoc,
  PLATFORM_ADMIN_ERROR,
} from '../identity-errors.openapi.js';
import {
  MembershipResponseDto,
  OrganizationResponseDto,
  ProjectResponseDto,
} from '../identity.openapi.js';
import { MembershipsRepository } from './memberships.repository.js';
import { MembershipsService } from './memberships.service.js';
import {
  CreateOrganizationBody,
  CreateProjectBody,
  UpdateMembershipBody,
} from './organizations.dto.js';
import { membershipView, OrganizationsService, projectView } from './organizations.service.js';
import { ProjectsRepository } from './projects.repository.js';

const MEMBERSHIP_404: ErrorDoc = [
  404,
  'not_found',
  'no membership of the organization has this id',
];
const ADMIN_CHANGE: ErrorDoc = [
  403,
  'forbidden',
  'an admin membership is granted, changed or removed by someone who is no organization admin',
];
const LAST_ADMIN: ErrorDoc = [
  422,
  'last_admin',
  'the change would leave the organization without an admin',
];

@ApiTags('organizations')
@Controller()
export class OrganizationsController {
  constructor(
    private readonly clock: Clock,
    private readonly organizations: OrganizationsService,
    private readonly projects: ProjectsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly membershipChanges: MembershipsService,
  ) {}

  /** The caller's organizations; a static token sees only its own. */
  @Get('organizations')
  @ApiData(OrganizationResponseDto, { list: true, description: "the caller's organizations" })
  @ApiErrors(...ACCOUNT_TOKEN_ERRORS)
  @Authenticated({ scope: 'account', scopeResource: 'organization', scopeLevel: 'read' })
  async listOrganizations(
    @CurrentPrincipal() principal: Principal,
  ): Promise<OrganizationResponseDto[]> {
    const confinedTo = confinementOf(principal);
    const organizations = await this.projects.listOrganizations(principal.account.id);
    return confinedTo ? organizations.filter((o) => o.id === confinedTo) : organizations;
  }

  /** A platform admin's login session only: organizations otherwise come from sign-ups. */
  @Post('organizations')
  @ApiData(OrganizationResponseDto, {
    status: 201,
    description: 'the new organization, the caller its admin',
  })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    PLATFORM_ADMIN_ERROR,
    invalidDoc('name (not blank, at most 200 characters)'),
  )
  @Authenticated({ scope: 'account', platformAdmin: true, interactiveOnly: true })
  createOrganization(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateOrganizationBody,
  ): Promise<OrganizationResponseDto> {
    return this.organizations.createOrganization(
      body.name.trim(),
      principal.account.id,
      this.clock.now(),
    );
  }

  @Get('organizations/:org_id/projects')
  @ApiData(ProjectResponseDto, { list: true, description: 'the projects of the organization' })
  @ApiErrors(...PERMISSION_ROUTE_ERRORS, organizationNotFoundDoc())
  @Authenticated({ scope: 'organization', permission: 'projects:read' })
  async listProjects(@CurrentPrincipal() principal: Principal) {
    return (await this.projects.listForOrganization(organizationOf(principal))).map(projectView);
  }

  @Post('organizations/:org_id/projects')
  @ApiData(ProjectResponseDto, { status: 201, description: 'the new project' })
  @ApiErrors(
    ...PERMISSION_ROUTE_ERRORS,
    CSRF_ERROR,
    organizationNotFoundDoc(),
    invalidDoc('name (not blank, unique in the organization)'),
  )
  @Authenticated({ scope: 'organization', permission: 'projects:create' })
  async createProject(@CurrentPrincipal() principal: Principal, @Body() body: CreateProjectBody) {
    return projectView(
      await this.projects.create(organizationOf(principal), body.name.trim(), this.clock.now()),
    );
  }

  @Get('organizations/:org_id/projects/:id')
  @ApiData(ProjectResponseDto, { description: 'the project' })
  @ApiErrors(
    ...PERMISSION_ROUTE_ERRORS,
    organizationNotFoundDoc('no project of the organization has this id'),
  )
  @Authenticated({ scope: 'organization', permission: 'projects:read' })
  showProject(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.organizations.project(organizationOf(principal), id);
  }

  @Get('memberships')
  @ApiData(MembershipResponseDto, { list: true, description: 'the members of the organization' })
  @ApiErrors(...ORGANIZATION_ACCESS_ERRORS)
  @Authenticated({ scope: 'organization', permission: 'members:read' })
  async listMemberships(@CurrentPrincipal() principal: Principal) {
    return (await this.memberships.listForOrganization(organizationOf(principal))).map(
      membershipView,
    );
  }

  @Get('memberships/:id')
  @ApiData(MembershipResponseDto, { description: 'the membership' })
  @ApiErrors(...ORGANIZATION_ACCESS_ERRORS, MEMBERSHIP_404)
  @Authenticated({ scope: 'organization', permission: 'members:read' })
  showMembership(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.organizations.membership(organizationOf(principal), id);
  }

  @Patch('memberships/:id')
  @ApiData(MembershipResponseDto, { description: 'the changed membership' })
  @ApiErrors(
    ...ORGANIZATION_ACCESS_ERRORS,
    CSRF_ERROR,
    ADMIN_CHANGE,
    [
      403,
      'role_ceiling',
      'the change adds a permission level the caller lacks; `details.exceeding` names them',
    ],
    MEMBERSHIP_404,
    invalidDoc('role, or permissions (known categories, levels; none for an admin)'),
    LAST_ADMIN,
  )
  @Authenticated({ scope: 'organization', permission: 'members:update' })
  updateMembership(
    @CurrentPrincipal() principal: Principal,
    @RequestActor() actor: AuditActor,
    @Id('id') id: string,
    @Body() body: UpdateMembershipBody,
  ) {
    return this.membershipChanges.update(principal, actor, id, body);
  }

  @Delete('memberships/:id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the member left the organization' })
  @ApiErrors(...ORGANIZATION_ACCESS_ERRORS, CSRF_ERROR, ADMIN_CHANGE, MEMBERSHIP_404, LAST_ADMIN)
  @Authenticated({ scope: 'organization', permission: 'members:delete' })
  removeMembership(
    @CurrentPrincipal() principal: Principal,
    @RequestActor() actor: AuditActor,
    @Id('id') id: string,
  ): Promise<void> {
    return this.membershipChanges.remove(principal, actor, id);
  }
}
