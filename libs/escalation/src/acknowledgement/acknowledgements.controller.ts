import { Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  ApiData,
  ApiIdParam,
  ApiProjectParam,
  ApiProjectWriteErrors,
  notFound,
} from '@platform/oncall';
import { AcknowledgementsService } from './acknowledgements.service.js';
import { ACKNOWLEDGER_MODELS, Alert } from './acknowledgement.openapi.js';

const ALERT_404 = notFound('no alert of this project has this id');

/**
 * In-app acknowledgement of an alert (scope resource `alerts`).
 *
 * - `POST .../ack` acknowledges as the caller on channel in_app and halts every active
 *   escalation of the alert; it is idempotent per account within one firing (a repeat adds no
 *   acknowledgement and no timeline event), and counts anew after the alert fires again. Any
 *   status may be acknowledged.
 * - `DELETE .../ack` hard-deletes every acknowledgement of the alert, whoever made it and on
 *   whichever channel; a halted escalation stays halted and a scheduled re-escalation still
 *   runs. With none to delete it answers the unchanged alert and records nothing.
 * - Both answer the updated alert and need `alerts:update` of a member, `alerts:write` of a
 *   static token.
 */
@ApiTags('alerts', 'escalation')
@ApiProjectParam()
@ApiIdParam('id', 'the alert')
@Controller('projects/:project_id/alerts/:id/ack')
@RequiresCapability('alerts')
export class AcknowledgementsController {
  constructor(private readonly acknowledgements: AcknowledgementsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Acknowledge an alert',
    description:
      "Acknowledges as the caller on channel in_app and halts every active escalation of the alert; a chain with re_escalation_after restarts from step 1 that many seconds later if the alert still fires. Idempotent per account within one firing (a repeat adds no acknowledgement and no timeline event); counts anew after the alert fires again. Any status may be acknowledged; the alert's status never changes. acknowledged_at and acknowledged_by are the earliest acknowledgement, acknowledgement_count counts all. Members: alerts update; tokens: alerts:write.",
  })
  @ApiData(Alert, {
    description: 'the acknowledged alert',
    extraModels: ACKNOWLEDGER_MODELS,
  })
  @ApiProjectWriteErrors(ALERT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: 'alerts' })
  acknowledge(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.acknowledgements.acknowledge({
      projectId: principal.projectId!,
      alertId: id,
      by: { kind: 'account', id: principal.account.id, name: principal.account.name },
      channel: 'in_app',
    });
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Remove the acknowledgements of an alert',
    description:
      'Hard-deletes every acknowledgement of the alert, whoever made it and on whichever channel. A halted escalation stays halted and a scheduled re-escalation still runs. With none to delete it answers the unchanged alert and records nothing. Members: alerts update; tokens: alerts:write.',
  })
  @ApiData(Alert, {
    description: 'the alert, no longer acknowledged',
    extraModels: ACKNOWLEDGER_MODELS,
  })
  @ApiProjectWriteErrors(ALERT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: 'alerts' })
  unacknowledge(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string) {
    return this.acknowledgements.unacknowledge(principal.projectId!, id, {
      id: principal.account.id,
      name: principal.account.name,
    });
  }
}
