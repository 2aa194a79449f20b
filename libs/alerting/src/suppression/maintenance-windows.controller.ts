import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, ApiErrors, IdParam } from '@platform/core';
import { MaintenanceWindowResponseDto } from '../alerting.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { MaintenanceWindowsService } from './maintenance-windows.service.js';
import { CreateMaintenanceWindowBody, UpdateMaintenanceWindowBody } from './suppression.dto.js';

/**
 * Maintenance windows of a project (scope resource `maintenance_windows`), listed by
 * `starts_at` descending; each view says whether the window is `active` now. Matchers are
 * checked like a route's (422 `validation_failed` naming `matchers[i]`).
 */
@ApiTags('alerts')
@Controller('projects/:project_id/maintenance_windows')
@RequiresCapability('alerts')
export class MaintenanceWindowsController {
  constructor(private readonly windows: MaintenanceWindowsService) {}

  @Get()
  @ApiData(MaintenanceWindowResponseDto, { list: true, description: 'the maintenance windows' })
  @ApiErrors(401, 403, 404)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:read',
    scopeResource: 'maintenance_windows',
  })
  list(@CurrentPrincipal() principal: Principal) {
    return this.windows.list(principal.projectId!);
  }

  @Post()
  @ApiData(MaintenanceWindowResponseDto, { status: 201, description: 'the new window' })
  @ApiErrors(400, 401, 403, 404, 422)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:create',
    scopeResource: 'maintenance_windows',
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateMaintenanceWindowBody) {
    return this.windows.create(principal.projectId!, body, principal.account.id);
  }

  @Get(':id')
  @ApiData(MaintenanceWindowResponseDto, { description: 'the window' })
  @ApiErrors(401, 403, 404)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:read',
    scopeResource: 'maintenance_windows',
  })
  show(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.windows.show(principal.projectId!, id);
  }

  @Patch(':id')
  @ApiData(MaintenanceWindowResponseDto, { description: 'the changed window' })
  @ApiErrors(400, 401, 403, 404, 422)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:update',
    scopeResource: 'maintenance_windows',
  })
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id') id: string,
    @Body() body: UpdateMaintenanceWindowBody,
  ) {
    return this.windows.update(principal.projectId!, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the window is deleted' })
  @ApiErrors(401, 403, 404)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: 'maintenance_windows',
  })
  async delete(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string): Promise<void> {
    await this.windows.delete(principal.projectId!, id);
  }
}
