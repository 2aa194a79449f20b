import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, ApiErrors, IdParam as Id } from '@platform/core';
import { AlertRoutePreviewResponseDto, AlertRouteResponseDto } from '../alerting.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  CloneAlertRouteBody,
  CreateAlertRouteBody,
  PreviewAlertRouteBody,
  UpdateAlertRouteBody,
} from './alert-routes.dto.js';
import { AlertRoutesService } from './alert-routes.service.js';

const RESOURCE = 'alert_routes';

/**
 * `/projects/{project_id}/alert_routes`, its own token scope resource. Members need the alerts
 * category: read to list, show and preview; update to change a route; delete to create, clone
 * or delete one (the spec reserves creating and deleting routes to that level). Tokens need
 * `alert_routes:read` for GET and preview, `write` to create or update, `manage` to delete
 * or clone. A clone is created disabled, so it takes no alert from its original until it has
 * been reviewed and enabled.
 */
@ApiTags('alerting')
@Controller('projects/:project_id/alert_routes')
@RequiresCapability('alerts')
export class AlertRoutesController {
  constructor(private readonly routes: AlertRoutesService) {}

  @Get()
  @ApiData(AlertRouteResponseDto, { list: true, description: 'the routes in evaluation order' })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal) {
    return this.routes.list(principal.projectId!);
  }

  @Post()
  @ApiData(AlertRouteResponseDto, { status: 201, description: 'the new route' })
  @ApiErrors(400, 401, 403, 404, 422)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: RESOURCE,
    scopeLevel: 'create',
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateAlertRouteBody) {
    return this.routes.create(principal.projectId!, body);
  }

  @Post('preview')
  @HttpCode(200)
  @ApiData(AlertRoutePreviewResponseDto, { description: 'how the routes would take the alert' })
  @ApiErrors(400, 401, 403, 404, 422)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  preview(@CurrentPrincipal() principal: Principal, @Body() body: PreviewAlertRouteBody) {
    return this.routes.preview(principal.projectId!, body);
  }

  @Get(':id')
  @ApiData(AlertRouteResponseDto, { description: 'the route' })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.routes.show(principal.projectId!, id);
  }

  @Patch(':id')
  @ApiData(AlertRouteResponseDto, { description: 'the changed route' })
  @ApiErrors(400, 401, 403, 404, 422)
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: RESOURCE })
  update(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: UpdateAlertRouteBody,
  ) {
    return this.routes.update(principal.projectId!, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the route is deleted' })
  @ApiErrors(401, 403, 404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(@CurrentPrincipal() principal: Principal, @Id('id') id: string): Promise<void> {
    await this.routes.delete(principal.projectId!, id);
  }

  @Post(':id/clone')
  @ApiData(AlertRouteResponseDto, { status: 201, description: 'the copy' })
  @ApiErrors(400, 401, 403, 404, 422)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  clone(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: CloneAlertRouteBody,
  ) {
    return this.routes.clone(principal.projectId!, id, body);
  }
}
