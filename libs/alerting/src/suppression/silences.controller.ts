import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { SilencesService } from './silences.service.js';
import { CreateSilenceBody } from './suppression.dto.js';

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
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: 'alert_silences' })
  list(@CurrentPrincipal() principal: Principal, @IdParam('alert_id') alertId: string) {
    return this.silences.list(principal.projectId!, alertId);
  }

  @Post()
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
