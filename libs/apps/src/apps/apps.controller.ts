import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { CloudRoute } from '@platform/cloud-core';
import { ApiData, type ErrorDoc, IdParam } from '@platform/core';
import { CurrentPrincipal, type Principal } from '@platform/identity';
import { AppResponseDto, CreateAppBody, UpdateAppBody } from './apps.dto.js';
import { AppsService } from './apps.service.js';

/**
 * Axis B of the apps routes depends on the body's `kind`, so the service checks it (see
 * AppsService.create); the document names the failure here.
 */
const NOT_AVAILABLE: ErrorDoc = [
  403,
  'apps_capability_not_enabled',
  "the app kind (the body's `kind`; on PATCH, a new one) is not among the project's Available app kinds",
];
const NOT_FOUND: ErrorDoc = [404, 'not_found', 'no app of the project has this id'];
const DUPLICATE: ErrorDoc = [
  409,
  'conflict',
  "the project already has an app of this name, or the project's namespace belongs to another tenant",
];

@ApiTags('apps')
@Controller('apps')
export class AppsController {
  constructor(private readonly apps: AppsService) {}

  @Get()
  @ApiData(AppResponseDto, { list: true, description: "the project's apps, by name" })
  @CloudRoute({ permission: 'apps:read' })
  list(@CurrentPrincipal() principal: Principal) {
    return this.apps.list(principal);
  }

  @Post()
  @HttpCode(201)
  @ApiData(AppResponseDto, {
    status: 201,
    description: 'the new app as it stands (`progressing` until Flux installed it); poll it',
  })
  @CloudRoute({ permission: 'apps:create', errors: [NOT_AVAILABLE, DUPLICATE] })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateAppBody) {
    return this.apps.create(principal, body);
  }

  @Get(':id')
  @ApiData(AppResponseDto, { description: 'the app' })
  @CloudRoute({ permission: 'apps:read', errors: [NOT_FOUND] })
  show(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.apps.show(principal, id);
  }

  @Patch(':id')
  @ApiData(AppResponseDto, { description: 'the changed app as it stands' })
  @CloudRoute({ permission: 'apps:update', errors: [NOT_AVAILABLE, NOT_FOUND] })
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
    @Body() body: UpdateAppBody,
  ) {
    return this.apps.update(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Flux uninstalls the release' })
  @CloudRoute({ permission: 'apps:delete', errors: [NOT_FOUND] })
  delete(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.apps.delete(principal, id);
  }
}
