import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, IdParam } from '@platform/core';
import {
  ApiAlertingErrors,
  ApiAlertingWriteErrors,
  alertingInvalidDoc,
  alertingNotFoundDoc,
} from '../alerting-errors.openapi.js';
import { MaintenanceWindowResponseDto } from '../alerting.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { MaintenanceWindowsService } from './maintenance-windows.service.js';
import { CreateMaintenanceWindowBody, UpdateMaintenanceWindowBody } from './suppression.dto.js';

const WINDOW_404 = alertingNotFoundDoc('no maintenance window of the project has this id');
const WINDOW_422 = alertingInvalidDoc('name, starts_at, ends_at or matchers');

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
  @ApiAlertingErrors(alertingNotFoundDoc())
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
  @ApiAlertingWriteErrors(alertingNotFoundDoc(), WINDOW_422)
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
  @ApiAlertingErrors(WINDOW_404)
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
  @ApiAlertingWriteErrors(WINDOW_404, WINDOW_422)
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
  @ApiAlertingWriteErrors(WINDOW_404)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: 'maintenance_windows',
  })
  async delete(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string): Promise<void> {
    await this.windows.delete(principal.projectId!, id);
  }
}
