import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { CreateRosterBody, ShiftsQuery, UpdateRosterBody } from './rosters.dto.js';
import { RostersService } from './rosters.service.js';

const RESOURCE = 'on_call_rosters';

/**
 * `/projects/{project_id}/on_call_rosters`, scope resource `on_call_rosters` (read also covers
 * `shifts`). Members need the alerts category: read to list, show and see shifts; update to
 * change a roster; delete to create or delete one (the spec reserves both to that level).
 * Tokens need `on_call_rosters:read`, `write` to create or update, `manage` to delete.
 */
@ApiTags('escalation')
@Controller('projects/:project_id/on_call_rosters')
@RequiresCapability('alerts')
export class RostersController {
  constructor(private readonly rosters: RostersService) {}

  @Get()
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal) {
    return this.rosters.list(principal.projectId!);
  }

  @Post()
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
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.rosters.show(principal.projectId!, id);
  }

  @Patch(':id')
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
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(@CurrentPrincipal() principal: Principal, @Id('id') id: string): Promise<void> {
    await this.rosters.delete(principal.projectId!, id);
  }

  @Get(':id/shifts')
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  shifts(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Query() query: ShiftsQuery,
  ) {
    return this.rosters.shifts(principal.projectId!, id, query);
  }
}
