import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, type ErrorDoc, IdParam as Id } from '@platform/core';
import {
  ApiAlertingErrors,
  ApiAlertingWriteErrors,
  alertingInvalidDoc,
  alertingNotFoundDoc,
} from '../alerting-errors.openapi.js';
import { AlertRoutePreviewResponseDto, AlertRouteResponseDto } from '../alerting.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  CloneAlertRouteBody,
  CreateAlertRouteBody,
  PreviewAlertRouteBody,
  UpdateAlertRouteBody,
} from './alert-routes.dto.js';
import { AlertRoutesService } from './alert-routes.service.js';

const ROUTE_404 = alertingNotFoundDoc('no alert route of the project has this id');
const ROUTE_422 = alertingInvalidDoc(
  'name, priority, matchers, the in-app target, min_severity_for_notification, cooldown_seconds, or an escalation chain or notification endpoint that is not of the project',
);
const DOES_NOTHING: ErrorDoc = [
  422,
  'route_does_nothing',
  'the route would have no in-app target, no escalation chain and no enabled notification endpoint',
];

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
  @ApiAlertingErrors(alertingNotFoundDoc())
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal) {
    return this.routes.list(principal.projectId!);
  }

  @Post()
  @ApiData(AlertRouteResponseDto, { status: 201, description: 'the new route' })
  @ApiAlertingWriteErrors(alertingNotFoundDoc(), ROUTE_422, DOES_NOTHING)
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
  @ApiAlertingWriteErrors(alertingNotFoundDoc(), alertingInvalidDoc('labels or severity'))
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  preview(@CurrentPrincipal() principal: Principal, @Body() body: PreviewAlertRouteBody) {
    return this.routes.preview(principal.projectId!, body);
  }

  @Get(':id')
  @ApiData(AlertRouteResponseDto, { description: 'the route' })
  @ApiAlertingErrors(ROUTE_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.routes.show(principal.projectId!, id);
  }

  @Patch(':id')
  @ApiData(AlertRouteResponseDto, { description: 'the changed route' })
  @ApiAlertingWriteErrors(ROUTE_404, ROUTE_422, DOES_NOTHING)
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
  @ApiAlertingWriteErrors(ROUTE_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(@CurrentPrincipal() principal: Principal, @Id('id') id: string): Promise<void> {
    await this.routes.delete(principal.projectId!, id);
  }

  @Post(':id/clone')
  @ApiData(AlertRouteResponseDto, { status: 201, description: 'the copy' })
  @ApiAlertingWriteErrors(ROUTE_404, alertingInvalidDoc('name or priority'), DOES_NOTHING)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  clone(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: CloneAlertRouteBody,
  ) {
    return this.routes.clone(principal.projectId!, id, body);
  }
}
