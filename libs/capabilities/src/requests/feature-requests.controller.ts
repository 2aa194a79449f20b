import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  ApproveFeatureRequestBody,
  CreateFeatureRequestBody,
  ListFeatureRequestsQuery,
  RejectFeatureRequestBody,
} from './feature-requests.dto.js';
import { FeatureRequestsService } from './feature-requests.service.js';

@ApiTags('capabilities')
@Controller('projects/:project_id/feature_requests')
export class FeatureRequestsController {
  constructor(private readonly requests: FeatureRequestsService) {}

  @Post()
  @Authenticated({ scope: 'project' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateFeatureRequestBody) {
    return this.requests.create(
      principal.projectId!,
      {
        featureKey: body.feature_key,
        kinds: body.requested_configuration?.allowed_kinds ?? null,
        message: body.message ?? null,
      },
      principal,
    );
  }

  @Get()
  @Authenticated({ scope: 'project' })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListFeatureRequestsQuery) {
    return this.requests.list(principal.projectId!, query.status);
  }

  @Get(':id')
  @Authenticated({ scope: 'project' })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.requests.show(principal.projectId!, id);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @Authenticated({ scope: 'project', permission: 'organization:update' })
  approve(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: ApproveFeatureRequestBody,
  ) {
    return this.requests.approve(
      principal.projectId!,
      id,
      { kinds: body.approved_configuration?.allowed_kinds, note: body.note ?? null },
      principal,
    );
  }

  @Post(':id/reject')
  @HttpCode(200)
  @Authenticated({ scope: 'project', permission: 'organization:update' })
  reject(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: RejectFeatureRequestBody,
  ) {
    return this.requests.reject(principal.projectId!, id, body.reason ?? null, principal);
  }
}
