import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { ApiData, IdParam } from '@platform/core';
import {
  ApiAlertingErrors,
  ApiAlertingWriteErrors,
  alertingInvalidDoc,
  alertingNotFoundDoc,
} from '../alerting-errors.openapi.js';
import { SilenceResponseDto } from '../alerting.openapi.js';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { SilencesService } from './silences.service.js';
import { CreateSilenceBody } from './suppression.dto.js';

const ALERT_404 = alertingNotFoundDoc('no alert of the project has this id');

/**
 * Silences of an alert (scope resource `alert_silences`). POST `{ends_at, comment}` silences
 * the alert from now until `ends_at` (in the future; 422 `validation_failed` otherwise), GET
 * lists the alert's silences newest first, active or not, DELETE expires one (204).
 */
@ApiTags('alerts')
@Controller('projects/:project_id/alerts/:alert_id/silences')
@RequiresCapability('alerts')
export class SilencesController {
  constructor(private readonly silences: SilencesService) {}

  @Get()
  @ApiData(SilenceResponseDto, { list: true, description: "the alert's silences, newest first" })
  @ApiAlertingErrors(ALERT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: 'alert_silences' })
  list(@CurrentPrincipal() principal: Principal, @IdParam('alert_id') alertId: string) {
    return this.silences.list(principal.projectId!, alertId);
  }

  @Post()
  @ApiData(SilenceResponseDto, { status: 201, description: 'the new silence' })
  @ApiAlertingWriteErrors(ALERT_404, alertingInvalidDoc('ends_at (in the future) or comment'))
  @Authenticated({
    scope: 'project',
    permission: 'alerts:create',
    scopeResource: 'alert_silences',
  })
  create(
    @CurrentPrincipal() principal: Principal,
    @IdParam('alert_id') alertId: string,
    @Body() body: CreateSilenceBody,
  ) {
    return this.silences.create(principal.projectId!, alertId, body, principal.account.id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the silence is expired' })
  @ApiAlertingWriteErrors(
    alertingNotFoundDoc(
      'no alert of the project has this id, or the alert has no silence with this id',
    ),
  )
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: 'alert_silences',
  })
  async expire(
    @CurrentPrincipal() principal: Principal,
    @IdParam('alert_id') alertId: string,
    @IdParam('id') id: string,
  ): Promise<void> {
    await this.silences.expire(principal.projectId!, alertId, id);
  }
}
