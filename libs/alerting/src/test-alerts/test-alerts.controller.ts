import { Body, Controller, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuditActor, CurrentActor } from '@platform/audit';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData } from '@platform/core';
import {
  ApiAlertingWriteErrors,
  alertingInvalidDoc,
  alertingNotFoundDoc,
} from '../alerting-errors.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { ACKNOWLEDGER_MODELS, Alert } from '../alerts/alerts.openapi.js';
import { TestAlertsService } from './test-alerts.service.js';
import { CreateTestAlertBody } from './test-alerts.dto.js';

/**
 * `POST /projects/{project_id}/alerts/test`: a custom action on the `alerts` scope resource at
 * manage level (`alerts:manage` or `alerts:*` on a token; the alerts delete permission of a
 * member, which org admins have). Answers 201 with the alert as `GET .../alerts/{id}` shows it.
 */
@ApiTags('alerts')
@Controller('projects/:project_id/alerts')
@RequiresCapability('alerts')
export class TestAlertsController {
  constructor(private readonly testAlerts: TestAlertsService) {}

  @Post('test')
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: 'alerts',
    scopeLevel: 'delete',
  })
  @ApiData(Alert, {
    status: 201,
    extraModels: ACKNOWLEDGER_MODELS,
    description: 'the alert created, firing',
  })
  @ApiAlertingWriteErrors(
    alertingNotFoundDoc('route_id names no route of this project'),
    alertingInvalidDoc('route_id or labels'),
    [
      429,
      'throttled',
      'more than 6 test alerts within a minute by this credential in this project; Retry-After gives the seconds to wait',
    ],
  )
  create(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Body() body: CreateTestAlertBody,
  ) {
    return this.testAlerts.create(principal, actor, body);
  }
}
