import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { IdParam as Id } from '@platform/core';
import {
  Authenticated,
  CurrentPrincipal,
  organizationOf,
  type Principal,
} from '@platform/identity';
import { ProjectCapabilitiesService } from './project-capabilities.service.js';
import { CapabilitiesService } from './capabilities.service.js';
import { SetGrantBody, SetLimitBody } from './capabilities.dto.js';

@ApiTags('capabilities')
@Controller()
export class CapabilitiesController {
  constructor(
    private readonly capabilities: CapabilitiesService,
    private readonly projects: ProjectCapabilitiesService,
  ) {}

  @Get('organizations/:org_id/features')
  @Authenticated({ scope: 'organization', permission: 'organization:read' })
  listFeatures(@CurrentPrincipal() principal: Principal) {
    return this.capabilities.organizationFeatures(organizationOf(principal));
  }

  @Get('organizations/:org_id/features/:feature_key')
  @Authenticated({ scope: 'organization', permission: 'organization:read' })
  showFeature(@CurrentPrincipal() principal: Principal, @Param('feature_key') key: string) {
    return this.capabilities.organizationFeature(organizationOf(principal), key);
  }

  @Put('admin/organizations/:org_id/features/:feature_key')
  @Authenticated({ scope: 'organization', platformAdmin: true })
  setLimit(
    @CurrentPrincipal() principal: Principal,
    @Param('feature_key') key: string,
    @Body() body: SetLimitBody,
  ) {
    const kinds = body.ceiling_configuration?.allowed_kinds ?? null;
    return this.capabilities.setLimit(organizationOf(principal), key, kinds, principal);
  }

  @Get('organizations/:org_id/projects/:project_id/feature-grants')
  @Authenticated({ scope: 'organization', permission: 'projects:read' })
  async listGrants(@CurrentPrincipal() principal: Principal, @Id('project_id') projectId: string) {
    await this.projects.inOrganization(organizationOf(principal), projectId);
    return this.capabilities.projectGrants(projectId);
  }

  @Get('organizations/:org_id/projects/:project_id/feature-grants/:feature_key')
  @Authenticated({ scope: 'organization', permission: 'projects:read' })
  async showGrant(
    @CurrentPrincipal() principal: Principal,
    @Id('project_id') projectId: string,
    @Param('feature_key') key: string,
  ) {
    await this.projects.inOrganization(organizationOf(principal), projectId);
    return this.capabilities.projectGrant(projectId, key);
  }

  @Put('organizations/:org_id/projects/:project_id/feature-grants/:feature_key')
  @Authenticated({ scope: 'organization', permission: 'organization:update' })
  async setGrant(
    @CurrentPrincipal() principal: Principal,
    @Id('project_id') projectId: string,
    @Param('feature_key') key: string,
    @Body() body: SetGrantBody,
  ) {
    const organizationId = organizationOf(principal);
    await this.projects.inOrganization(organizationId, projectId);
    const kinds = body.approved_configuration.allowed_kinds;
    return this.capabilities.setGrant(organizationId, projectId, key, kinds, principal);
  }

  @Delete('organizations/:org_id/projects/:project_id/feature-grants/:feature_key')
  @HttpCode(204)
  @Authenticated({ scope: 'organization', permission: 'organization:update' })
  async revokeGrant(
    @CurrentPrincipal() principal: Principal,
    @Id('project_id') projectId: string,
    @Param('feature_key') key: string,
  ): Promise<void> {
    await this.projects.inOrganization(organizationOf(principal), projectId);
    await this.capabilities.revokeGrant(projectId, key, principal);
  }

  @Get('projects/:project_id')
  @Authenticated({ scope: 'project', permission: 'projects:read' })
  showProject(@CurrentPrincipal() principal: Principal) {
    return this.projects.detail(principal.projectId!);
  }
}
