import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  ApiData,
  ApiIdParam,
  ApiProjectErrors,
  ApiProjectParam,
  ApiProjectWriteErrors,
  notFound,
  invalid,
} from '../alerts-api.openapi.js';
import { RosterMembersService } from './roster-members.service.js';
import { AddMemberBody, MoveMemberBody } from './rosters.dto.js';
import { OnCallRosterMember } from './rosters.openapi.js';

const RESOURCE = 'on_call_roster_members';
const ROSTER_404 = notFound('no on-call roster of this project has this id');
const MEMBER_404 = notFound(
  'no on-call roster of this project has this id or it has no such member',
);

/**
 * `/projects/{project_id}/on_call_rosters/{id}/on_call_roster_members`, scope resource
 * `on_call_roster_members`: alerts read to list, create to add, update to move, delete to
 * remove (tokens: read, write, write, manage).
 */
@ApiTags('escalation')
@ApiProjectParam()
@ApiIdParam('id', 'the roster')
@Controller('projects/:project_id/on_call_rosters/:id/on_call_roster_members')
@RequiresCapability('alerts')
export class RosterMembersController {
  constructor(private readonly members: RosterMembersService) {}

  @Get()
  @ApiOperation({
    summary: 'List the members of an on-call roster',
    description:
      'In rotation order (position, 0-based and dense). An account that left the organization stays listed until removed, but the rotation and paging skip it. Members: alerts read; tokens: on_call_roster_members:read.',
  })
  @ApiData(OnCallRosterMember, { list: true, description: 'the members in rotation order' })
  @ApiProjectErrors(ROSTER_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.members.list(principal.projectId!, id);
  }

  @Post()
  @ApiOperation({
    summary: 'Add a member to an on-call roster',
    description:
      "Adds an account holding a membership in the project's organization that is not yet on the roster: appended, or inserted at position (0..count) with later members moving down, which re-deals the rotation. Members: alerts create; tokens: on_call_roster_members:write.",
  })
  @ApiData(OnCallRosterMember, { status: 201, description: 'the new member' })
  @ApiProjectWriteErrors(
    ROSTER_404,
    invalid(
      'account_id not a UUID, not an account of the organization or already on the roster, or position out of 0..count',
    ),
  )
  @Authenticated({ scope: 'project', permission: 'alerts:create', scopeResource: RESOURCE })
  add(@CurrentPrincipal() principal: Principal, @Id('id') id: string, @Body() body: AddMemberBody) {
    return this.members.add(principal.projectId!, id, body);
  }

  @Patch(':member_id')
  @ApiOperation({
    summary: 'Move a member within the rotation',
    description:
      'Moves the member to position (0..count-1); the members in between shift by one. Members: alerts update; tokens: on_call_roster_members:write.',
  })
  @ApiIdParam('member_id', 'the membership on the roster (its id, not the account id)')
  @ApiData(OnCallRosterMember, { description: 'the moved member' })
  @ApiProjectWriteErrors(MEMBER_404, invalid('position missing, negative or past the last member'))
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: RESOURCE })
  move(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('member_id') memberId: string,
    @Body() body: MoveMemberBody,
  ) {
    return this.members.move(principal.projectId!, id, memberId, body);
  }

  @Delete(':member_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove a member from an on-call roster',
    description:
      'Removes the member and closes the gap in the positions. Members: alerts delete; tokens: on_call_roster_members:manage.',
  })
  @ApiIdParam('member_id', 'the membership on the roster (its id, not the account id)')
  @ApiNoContentResponse({ description: 'removed' })
  @ApiProjectWriteErrors(MEMBER_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('member_id') memberId: string,
  ): Promise<void> {
    await this.members.remove(principal.projectId!, id, memberId);
  }
}
