import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { RosterScheduleService } from './roster-schedule.service.js';
import { CreateOverrideBody, ListOverridesQuery, PutRotationBody } from './rosters.dto.js';

/**
 * `/projects/{project_id}/on_call_rosters/{id}/rotation`, scope resource `on_call_rotations`:
 * alerts read to show, update to create or replace it (PUT), delete to remove it (tokens:
 * read, write, manage).
 */
@ApiTags('escalation')
@Controller('projects/:project_id/on_call_rosters/:id/rotation')
@RequiresCapability('alerts')
export class RosterRotationController {
  constructor(private readonly schedule: RosterScheduleService) {}

  @Get()
  @Authenticated({
    scope: 'project',
    permission: 'alerts:read',
    scopeResource: 'on_call_rotations',
  })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.schedule.rotation(principal.projectId!, id);
  }

  @Put()
  @Authenticated({
    scope: 'project',
    permission: 'alerts:update',
    scopeResource: 'on_call_rotations',
  })
  put(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: PutRotationBody,
  ) {
    return this.schedule.putRotation(principal.projectId!, id, body);
  }

  @Delete()
  @HttpCode(204)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: 'on_call_rotations',
  })
  async delete(@CurrentPrincipal() principal: Principal, @Id('id') id: string): Promise<void> {
    await this.schedule.deleteRotation(principal.projectId!, id);
  }
}

/**
 * `/projects/{project_id}/on_call_rosters/{id}/on_call_overrides`, scope resource
 * `on_call_overrides`: alerts read to list and show, create, delete (tokens: read, write,
 * manage).
 */
@ApiTags('escalation')
@Controller('projects/:project_id/on_call_rosters/:id/on_call_overrides')
@RequiresCapability('alerts')
export class RosterOverridesController {
  constructor(private readonly schedule: RosterScheduleService) {}

  @Get()
  @Authenticated({
    scope: 'project',
    permission: 'alerts:read',
    scopeResource: 'on_call_overrides',
  })
  list(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Query() query: ListOverridesQuery,
  ) {
    return this.schedule.overrides(principal.projectId!, id, query);
  }

  @Post()
  @Authenticated({
    scope: 'project',
    permission: 'alerts:create',
    scopeResource: 'on_call_overrides',
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: CreateOverrideBody,
  ) {
    return this.schedule.createOverride(principal.projectId!, id, body);
  }

  @Get(':override_id')
  @Authenticated({
    scope: 'project',
    permission: 'alerts:read',
    scopeResource: 'on_call_overrides',
  })
  show(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('override_id') overrideId: string,
  ) {
    return this.schedule.override(principal.projectId!, id, overrideId);
  }

  @Delete(':override_id')
  @HttpCode(204)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: 'on_call_overrides',
  })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('override_id') overrideId: string,
  ): Promise<void> {
    await this.schedule.deleteOverride(principal.projectId!, id, overrideId);
  }
}
