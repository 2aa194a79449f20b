import { Body, Controller, Get, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, IdParam } from '@platform/core';
import {
  ACCOUNT_SESSION_ERRORS,
  Authenticated,
  CSRF_ERROR,
  CurrentPrincipal,
  invalidDoc,
  PLATFORM_ADMIN_ERROR,
  type Principal,
} from '@platform/identity';
import {
  CreatePlatformIncidentBody,
  PlatformIncidentResponseDto,
  UpdatePlatformIncidentBody,
} from './platform-incidents.dto.js';
import { PlatformIncidentsService } from './platform-incidents.service.js';

const NOT_FOUND = [404, 'not_found', 'no platform incident has this id'] as const;

/** Platform-wide, beyond any one organization: a platform admin's login session only. */
@ApiTags('notifications')
@Controller('admin/platform_incidents')
@Authenticated({ scope: 'account', platformAdmin: true, interactiveOnly: true })
export class PlatformIncidentsController {
  constructor(private readonly incidents: PlatformIncidentsService) {}

  @Post()
  @ApiData(PlatformIncidentResponseDto, {
    status: 201,
    description: 'the open incident; every concerned account is being notified',
  })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    PLATFORM_ADMIN_ERROR,
    invalidDoc('title, body, severity or affected_features (known feature keys)'),
  )
  open(@CurrentPrincipal() principal: Principal, @Body() body: CreatePlatformIncidentBody) {
    return this.incidents.open(body, principal.account.id);
  }

  @Get()
  @ApiData(PlatformIncidentResponseDto, { list: true, description: 'every incident, newest first' })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS, PLATFORM_ADMIN_ERROR)
  list() {
    return this.incidents.list();
  }

  @Get(':id')
  @ApiData(PlatformIncidentResponseDto, { description: 'the incident' })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS, PLATFORM_ADMIN_ERROR, [...NOT_FOUND])
  get(@IdParam('id') id: string) {
    return this.incidents.get(id);
  }

  @Patch(':id')
  @ApiData(PlatformIncidentResponseDto, {
    description: 'the incident; `resolved: true` resolves it and notifies its resolution once',
  })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    PLATFORM_ADMIN_ERROR,
    [...NOT_FOUND],
    invalidDoc('title, body or resolved (only true)'),
  )
  update(@IdParam('id') id: string, @Body() body: UpdatePlatformIncidentBody) {
    return this.incidents.update(id, body);
  }
}
