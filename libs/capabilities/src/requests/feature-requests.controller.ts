import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, IdParam as Id } from '@platform/core';
import { FeatureRequestResponseDto } from '../capabilities.openapi.js';
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
  @ApiData(FeatureRequestResponseDto, { status: 201, description: 'the pending request' })
  @ApiErrors(400, 401, 403, 404, 409, 422)
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
  @ApiData(FeatureRequestResponseDto, { list: true, description: 'the requests of the project' })
  @ApiErrors(401, 403, 404, 422)
  @Authenticated({ scope: 'project' })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListFeatureRequestsQuery) {
    return this.requests.list(principal.projectId!, query.status);
  }

  @Get(':id')
  @ApiData(FeatureRequestResponseDto, { description: 'the request' })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'project' })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.requests.show(principal.projectId!, id);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiData(FeatureRequestResponseDto, { description: 'the approved request' })
  @ApiErrors(400, 401, 403, 404, 409, 422)
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
  @ApiData(FeatureRequestResponseDto, { description: 'the rejected request' })
  @ApiErrors(400, 401, 403, 404, 409, 422)
  @Authenticated({ scope: 'project', permission: 'organization:update' })
  reject(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: RejectFeatureRequestBody,
  ) {
    return this.requests.reject(principal.projectId!, id, body.reason ?? null, principal);
  }
}
