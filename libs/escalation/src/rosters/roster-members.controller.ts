import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { RosterMembersService } from './roster-members.service.js';
import { AddMemberBody, MoveMemberBody } from './rosters.dto.js';

const RESOURCE = 'on_call_roster_members';

/**
 * `/projects/{project_id}/on_call_rosters/{id}/on_call_roster_members`, scope resource
 * `on_call_roster_members`: alerts read to list, create to add, update to move, delete to
 * remove (tokens: read, write, write, manage).
 */
@ApiTags('escalation')
@Controller('projects/:project_id/on_call_rosters/:id/on_call_roster_members')
@RequiresCapability('alerts')
export class RosterMembersController {
  constructor(private readonly members: RosterMembersService) {}

  @Get()
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.members.list(principal.projectId!, id);
  }

  @Post()
  @Authenticated({ scope: 'project', permission: 'alerts:create', scopeResource: RESOURCE })
  add(@CurrentPrincipal() principal: Principal, @Id('id') id: string, @Body() body: AddMemberBody) {
    return this.members.add(principal.projectId!, id, body);
  }

  @Patch(':member_id')
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
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('member_id') memberId: string,
  ): Promise<void> {
    await this.members.remove(principal.projectId!, id, memberId);
  }
}
