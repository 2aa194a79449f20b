import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, IdParam as Id } from '@platform/core';
import {
  FeatureGrantResponseDto,
  FeatureResponseDto,
  ProjectDetailResponseDto,
} from '../capabilities.openapi.js';
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
  @ApiData(FeatureResponseDto, {
    list: true,
    description: "the catalog with the organization's Limits",
  })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'organization', permission: 'organization:read' })
  listFeatures(@CurrentPrincipal() principal: Principal) {
    return this.capabilities.organizationFeatures(organizationOf(principal));
  }

  @Get('organizations/:org_id/features/:feature_key')
  @ApiData(FeatureResponseDto, { description: "the feature with the organization's Limit" })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'organization', permission: 'organization:read' })
  showFeature(@CurrentPrincipal() principal: Principal, @Param('feature_key') key: string) {
    return this.capabilities.organizationFeature(organizationOf(principal), key);
  }

  @Put('admin/organizations/:org_id/features/:feature_key')
  @ApiData(FeatureResponseDto, { description: 'the feature with its new Limit' })
  @ApiErrors(400, 401, 403, 404, 422)
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
  @ApiData(FeatureGrantResponseDto, {
    list: true,
    description: 'every feature as it stands for the project',
  })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'organization', permission: 'projects:read' })
  async listGrants(@CurrentPrincipal() principal: Principal, @Id('project_id') projectId: string) {
    await this.projects.inOrganization(organizationOf(principal), projectId);
    return this.capabilities.projectGrants(projectId);
  }

  @Get('organizations/:org_id/projects/:project_id/feature-grants/:feature_key')
  @ApiData(FeatureGrantResponseDto, { description: 'the feature as it stands for the project' })
  @ApiErrors(401, 403, 404)
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
  @ApiData(FeatureGrantResponseDto, { description: 'the feature with its new Grant' })
  @ApiErrors(400, 401, 403, 404, 422)
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
  @ApiNoContentResponse({ description: 'the Grant is revoked' })
  @ApiErrors(401, 403, 404)
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
  @ApiData(ProjectDetailResponseDto, {
    description: 'the project with the app kinds it may create',
  })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'project', permission: 'projects:read' })
  showProject(@CurrentPrincipal() principal: Principal) {
    return this.projects.detail(principal.projectId!);
  }
}
