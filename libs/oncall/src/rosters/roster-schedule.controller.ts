import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  ApiData,
  ApiIdParam,
  ApiProjectErrors,
  ApiProjectParam,
  ApiProjectWriteErrors,
  invalid,
  notFound,
} from '../alerts-api.openapi.js';
import { RosterScheduleService } from './roster-schedule.service.js';
import { CreateOverrideBody, ListOverridesQuery, PutRotationBody } from './rosters.dto.js';
import { OnCallOverride, OnCallRotation } from './rosters.openapi.js';

const ROSTER_404 = notFound('no on-call roster of this project has this id');
const ROTATION_404 = notFound(
  'no on-call roster of this project has this id or it has no rotation',
);
const OVERRIDE_404 = notFound(
  'no on-call roster of this project has this id or it has no such override',
);

/**
 * `/projects/{project_id}/on_call_rosters/{id}/rotation`, scope resource `on_call_rotations`:
 * alerts read to show, update to create or replace it (PUT), delete to remove it (tokens:
 * read, write, manage).
 */
@ApiTags('escalation')
@ApiProjectParam()
@ApiIdParam('id', 'the roster')
@Controller('projects/:project_id/on_call_rosters/:id/rotation')
@RequiresCapability('alerts')
export class RosterRotationController {
  constructor(private readonly schedule: RosterScheduleService) {}

  @Get()
  @ApiOperation({
    summary: 'Show the rotation of an on-call roster',
    description: 'Members: alerts read; tokens: on_call_rotations:read.',
  })
  @ApiData(OnCallRotation, { description: 'the rotation' })
  @ApiProjectErrors(ROTATION_404)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:read',
    scopeResource: 'on_call_rotations',
  })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.schedule.rotation(principal.projectId!, id);
  }

  @Put()
  @ApiOperation({
    summary: 'Create or replace the rotation of an on-call roster',
    description:
      'A roster has at most one rotation, replaced whole. The first handoff is start_date at handoff_time in time_zone; before it nobody is on call by rotation. Daily and weekly handoffs stay at that local wall-clock time across DST (a skipped time happens that much later, a repeated one at its first occurrence); hours shifts last exactly shift_hours elapsed hours. Member i (by position) takes shift k where i = k mod member count. Members: alerts update; tokens: on_call_rotations:write.',
  })
  @ApiData(OnCallRotation, { description: 'the rotation as stored' })
  @ApiProjectWriteErrors(
    ROSTER_404,
    invalid(
      'time_zone not an IANA zone, start_date not a valid date from 1970 on, handoff_time not HH:MM, shift_length not daily, weekly or hours, or shift_hours missing or out of 1..744 for hours, or sent for another length',
    ),
  )
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
  @ApiOperation({
    summary: 'Delete the rotation of an on-call roster',
    description:
      'Afterwards only overrides put anyone on call. Members: alerts delete; tokens: on_call_rotations:manage.',
  })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiProjectWriteErrors(ROTATION_404)
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
@ApiProjectParam()
@ApiIdParam('id', 'the roster')
@Controller('projects/:project_id/on_call_rosters/:id/on_call_overrides')
@RequiresCapability('alerts')
export class RosterOverridesController {
  constructor(private readonly schedule: RosterScheduleService) {}

  @Get()
  @ApiOperation({
    summary: 'List the overrides of an on-call roster',
    description:
      'Optionally only those overlapping the window [from, to). Members: alerts read; tokens: on_call_overrides:read.',
  })
  @ApiQuery({
    name: 'from',
    required: false,
    type: String,
    format: 'date-time',
    description: 'only overrides ending after this (ISO 8601 with an offset); omitted: no bound',
  })
  @ApiQuery({
    name: 'to',
    required: false,
    type: String,
    format: 'date-time',
    description: 'only overrides starting before this, after from; omitted: no bound',
  })
  @ApiData(OnCallOverride, { list: true, description: 'the overrides by starts_at' })
  @ApiProjectErrors(
    ROSTER_404,
    invalid('from or to not an ISO 8601 date-time with an offset, or to not after from'),
  )
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
  @ApiOperation({
    summary: 'Create an override',
    description:
      "Puts an account holding a membership in the project's organization on call for [starts_at, ends_at), past or future, ahead of the rotation; where overrides overlap, the latest created wins. Overrides are not edited: delete and create another. Members: alerts create; tokens: on_call_overrides:write.",
  })
  @ApiData(OnCallOverride, { status: 201, description: 'the new override' })
  @ApiProjectWriteErrors(
    ROSTER_404,
    invalid(
      'account_id not an account of the organization, starts_at or ends_at not an ISO 8601 date-time with an offset, or ends_at not after starts_at',
    ),
  )
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
  @ApiOperation({
    summary: 'Show an override',
    description: 'Members: alerts read; tokens: on_call_overrides:read.',
  })
  @ApiIdParam('override_id', 'the override')
  @ApiData(OnCallOverride, { description: 'the override' })
  @ApiProjectErrors(OVERRIDE_404)
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
  @ApiOperation({
    summary: 'Delete an override',
    description: 'Members: alerts delete; tokens: on_call_overrides:manage.',
  })
  @ApiIdParam('override_id', 'the override')
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiProjectWriteErrors(OVERRIDE_404)
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
