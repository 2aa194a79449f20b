import { Body, Controller, Post } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { type AuditActor, CurrentActor } from '@platform/audit';
import { RequiresCapability } from '@platform/capabilities';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
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
  @ApiResponse({ status: 201, description: 'the alert created, firing' })
  @ApiResponse({ status: 404, description: 'not_found: route_id names no route of this project' })
  @ApiResponse({ status: 422, description: 'validation_failed: route_id or labels' })
  @ApiResponse({
    status: 429,
    description:
      'throttled: more than 6 test alerts within a minute by this credential in this project; Retry-After gives the seconds to wait',
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Body() body: CreateTestAlertBody,
  ) {
    return this.testAlerts.create(principal, actor, body);
  }
}
