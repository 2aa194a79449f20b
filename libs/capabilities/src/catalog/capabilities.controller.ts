import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, type ErrorDoc, IdParam as Id } from '@platform/core';
import {
  FeatureGrantResponseDto,
  FeatureResponseDto,
  ProjectDetailResponseDto,
} from '../capabilities.openapi.js';
import {
  Authenticated,
  CSRF_ERROR,
  CurrentPrincipal,
  invalidDoc,
  PERMISSION_ROUTE_ERRORS,
  organizationNotFoundDoc,
  organizationOf,
  PLATFORM_ADMIN_ERROR,
  type Principal,
  UNAUTHORIZED_ERROR,
} from '@platform/identity';
import {
  FEATURE_NOT_FOUND,
  PLATFORM_ADMIN_REQUIRED,
  projectNotFoundDoc,
} from '../capabilities-errors.openapi.js';
import { ProjectCapabilitiesService } from './project-capabilities.service.js';
import { CapabilitiesService } from './capabilities.service.js';
import { SetGrantBody, SetLimitBody } from './capabilities.dto.js';

const PROJECT_NOT_FOUND = 'no project of the organization has this id';
const GRANT_404: ErrorDoc = organizationNotFoundDoc(
  `${PROJECT_NOT_FOUND}, or ${FEATURE_NOT_FOUND}`,
);

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
  @ApiErrors(...PERMISSION_ROUTE_ERRORS, organizationNotFoundDoc())
  @Authenticated({ scope: 'organization', permission: 'organization:read' })
  listFeatures(@CurrentPrincipal() principal: Principal) {
    return this.capabilities.organizationFeatures(organizationOf(principal));
  }

  @Get('organizations/:org_id/features/:feature_key')
  @ApiData(FeatureResponseDto, { description: "the feature with the organization's Limit" })
  @ApiErrors(...PERMISSION_ROUTE_ERRORS, organizationNotFoundDoc(FEATURE_NOT_FOUND))
  @Authenticated({ scope: 'organization', permission: 'organization:read' })
  showFeature(@CurrentPrincipal() principal: Principal, @Param('feature_key') key: string) {
    return this.capabilities.organizationFeature(organizationOf(principal), key);
  }

  @Put('admin/organizations/:org_id/features/:feature_key')
  @ApiData(FeatureResponseDto, { description: 'the feature with its new Limit' })
  @ApiErrors(
    UNAUTHORIZED_ERROR,
    PLATFORM_ADMIN_ERROR,
    CSRF_ERROR,
    organizationNotFoundDoc(FEATURE_NOT_FOUND),
    invalidDoc('ceiling_configuration.allowed_kinds (kinds the feature knows, or null)'),
  )
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
  @ApiErrors(...PERMISSION_ROUTE_ERRORS, organizationNotFoundDoc(PROJECT_NOT_FOUND))
  @Authenticated({ scope: 'organization', permission: 'projects:read' })
  async listGrants(@CurrentPrincipal() principal: Principal, @Id('project_id') projectId: string) {
    await this.projects.inOrganization(organizationOf(principal), projectId);
    return this.capabilities.projectGrants(projectId);
  }

  @Get('organizations/:org_id/projects/:project_id/feature-grants/:feature_key')
  @ApiData(FeatureGrantResponseDto, { description: 'the feature as it stands for the project' })
  @ApiErrors(...PERMISSION_ROUTE_ERRORS, GRANT_404)
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
  @ApiErrors(
    ...PERMISSION_ROUTE_ERRORS,
    CSRF_ERROR,
    PLATFORM_ADMIN_REQUIRED,
    GRANT_404,
    invalidDoc('approved_configuration.allowed_kinds (kinds the feature knows, or null)'),
    [
      422,
      'exceeds_ceiling',
      "kinds outside the organization's Limit; `details.kinds` names them and nothing changes",
    ],
  )
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
  @ApiErrors(...PERMISSION_ROUTE_ERRORS, CSRF_ERROR, PLATFORM_ADMIN_REQUIRED, GRANT_404)
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
  @ApiErrors(...PERMISSION_ROUTE_ERRORS, projectNotFoundDoc())
  @Authenticated({ scope: 'project', permission: 'projects:read' })
  showProject(@CurrentPrincipal() principal: Principal) {
    return this.projects.detail(principal.projectId!, principal);
  }
}
