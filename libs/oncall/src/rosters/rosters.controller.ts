import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
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
import { CreateRosterBody, ShiftsQuery, UpdateRosterBody } from './rosters.dto.js';
import { OnCallRoster, OnCallShift } from './rosters.openapi.js';
import { RostersService } from './rosters.service.js';

const RESOURCE = 'on_call_rosters';
const ROSTER_404 = notFound('no on-call roster of this project has this id');
const ROSTER_422 = invalid('a name that is blank or too long, a description that is too long');

/**
 * `/projects/{project_id}/on_call_rosters`, scope resource `on_call_rosters` (read also covers
 * `shifts`). Members need the alerts category: read to list, show and see shifts; update to
 * change a roster; delete to create or delete one (the spec reserves both to that level).
 * Tokens need `on_call_rosters:read`, `write` to create or update, `manage` to delete.
 */
@ApiTags('escalation')
@ApiProjectParam()
@Controller('projects/:project_id/on_call_rosters')
@RequiresCapability('alerts')
export class RostersController {
  constructor(private readonly rosters: RostersService) {}

  @Get()
  @ApiOperation({
    summary: 'List on-call rosters',
    description:
      'Every roster of the project, by name then id, each with its members (rotation order), phone contacts (by label) and rotation. Members: alerts read; tokens: on_call_rosters:read.',
  })
  @ApiData(OnCallRoster, { list: true, description: 'the rosters' })
  @ApiProjectErrors(notFound())
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal) {
    return this.rosters.list(principal.projectId!);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an on-call roster',
    description:
      'A roster (a GoAlert rotation, a Grafana OnCall schedule) groups the accounts that take turns being on call, its external phone contacts, a rotation and overrides. It starts empty. Members: alerts delete; tokens: on_call_rosters:write.',
  })
  @ApiData(OnCallRoster, { status: 201, description: 'the new roster' })
  @ApiProjectWriteErrors(notFound(), ROSTER_422)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: RESOURCE,
    scopeLevel: 'create',
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateRosterBody) {
    return this.rosters.create(principal.projectId!, body);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Show an on-call roster',
    description:
      'The roster with its members, phone contacts and rotation (null without one). Members: alerts read; tokens: on_call_rosters:read.',
  })
  @ApiIdParam('id', 'the roster')
  @ApiData(OnCallRoster, { description: 'the roster' })
  @ApiProjectErrors(ROSTER_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.rosters.show(principal.projectId!, id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update an on-call roster',
    description:
      'Changes the fields sent; omitted fields stay, a null description clears it. Members: alerts update; tokens: on_call_rosters:write.',
  })
  @ApiIdParam('id', 'the roster')
  @ApiData(OnCallRoster, { description: 'the updated roster' })
  @ApiProjectWriteErrors(ROSTER_404, ROSTER_422)
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: RESOURCE })
  update(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: UpdateRosterBody,
  ) {
    return this.rosters.update(principal.projectId!, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an on-call roster',
    description:
      'Deletes the roster with its members, phone contacts, rotation and overrides. Routes and escalation steps that targeted it stay and page nobody through it. Members: alerts delete; tokens: on_call_rosters:manage.',
  })
  @ApiIdParam('id', 'the roster')
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiProjectWriteErrors(ROSTER_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(@CurrentPrincipal() principal: Principal, @Id('id') id: string): Promise<void> {
    await this.rosters.delete(principal.projectId!, id);
  }

  @Get(':id/shifts')
  @ApiOperation({
    summary: 'Compute the on-call shifts of a window',
    description:
      'Who is on call between from and to (at most 90 days apart), clipped to that window: rotation shifts with overrides cut in (where overrides overlap, the latest created wins), correct across DST. Only accounts holding a membership in the organization take part; absences are not applied (they decide who is paged at the moment, not the schedule). Without a rotation only overrides appear. Members: alerts read; tokens: on_call_rosters:read.',
  })
  @ApiIdParam('id', 'the roster')
  @ApiQuery({
    name: 'from',
    required: true,
    type: String,
    format: 'date-time',
    example: '2030-03-29T00:00:00Z',
    description: 'start of the window: ISO 8601 with an offset',
  })
  @ApiQuery({
    name: 'to',
    required: true,
    type: String,
    format: 'date-time',
    example: '2030-04-05T00:00:00Z',
    description: 'end of the window (exclusive): after from, at most 90 days later',
  })
  @ApiData(OnCallShift, { list: true, description: 'the shifts in time order' })
  @ApiProjectErrors(
    ROSTER_404,
    invalid(
      'from or to missing or not an ISO 8601 date-time with an offset, to not after from, or more than 90 days apart',
    ),
  )
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  shifts(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Query() query: ShiftsQuery,
  ) {
    return this.rosters.shifts(principal.projectId!, id, query);
  }
}
