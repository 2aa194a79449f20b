import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, type ErrorDoc, IdParam as Id } from '@platform/core';
import { FeatureRequestResponseDto } from '../capabilities.openapi.js';
import {
  Authenticated,
  CSRF_ERROR,
  CurrentPrincipal,
  invalidDoc,
  PERMISSION_ROUTE_ERRORS,
  type Principal,
  UNAUTHORIZED_ERROR,
} from '@platform/identity';
import { PLATFORM_ADMIN_REQUIRED, projectNotFoundDoc } from '../capabilities-errors.openapi.js';
import {
  ApproveFeatureRequestBody,
  CreateFeatureRequestBody,
  ListFeatureRequestsQuery,
  RejectFeatureRequestBody,
} from './feature-requests.dto.js';
import { FeatureRequestsService } from './feature-requests.service.js';

// Asking, listing and reading need no permission: a member is never refused (403) there, and a
// non-member learns nothing (404).
const REQUEST_404 = projectNotFoundDoc('no feature request of the project has this id');

/** Failures of approving or rejecting a request, but for its body's rules. */
const DECISION_ERRORS: readonly ErrorDoc[] = [
  ...PERMISSION_ROUTE_ERRORS,
  CSRF_ERROR,
  PLATFORM_ADMIN_REQUIRED,
  REQUEST_404,
  [409, 'request_not_pending', 'the request was approved or rejected already'],
];

@ApiTags('capabilities')
@Controller('projects/:project_id/feature_requests')
export class FeatureRequestsController {
  constructor(private readonly requests: FeatureRequestsService) {}

  @Post()
  @ApiData(FeatureRequestResponseDto, { status: 201, description: 'the pending request' })
  @ApiErrors(
    UNAUTHORIZED_ERROR,
    CSRF_ERROR,
    projectNotFoundDoc(),
    invalidDoc(
      'feature_key (a feature of the catalog), requested_configuration.allowed_kinds (kinds it knows) or message',
    ),
  )
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
  @ApiErrors(UNAUTHORIZED_ERROR, projectNotFoundDoc(), invalidDoc('status'))
  @Authenticated({ scope: 'project' })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListFeatureRequestsQuery) {
    return this.requests.list(principal.projectId!, query.status);
  }

  @Get(':id')
  @ApiData(FeatureRequestResponseDto, { description: 'the request' })
  @ApiErrors(UNAUTHORIZED_ERROR, REQUEST_404)
  @Authenticated({ scope: 'project' })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.requests.show(principal.projectId!, id);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiData(FeatureRequestResponseDto, { description: 'the approved request' })
  @ApiErrors(
    ...DECISION_ERRORS,
    invalidDoc('approved_configuration.allowed_kinds (kinds the feature knows) or note'),
  )
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
  @ApiErrors(...DECISION_ERRORS, invalidDoc('reason'))
  @Authenticated({ scope: 'project', permission: 'organization:update' })
  reject(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: RejectFeatureRequestBody,
  ) {
    return this.requests.reject(principal.projectId!, id, body.reason ?? null, principal);
  }
}
