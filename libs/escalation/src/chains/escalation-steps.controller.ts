import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { CreateStepBody, UpdateStepBody } from './escalation-steps.dto.js';
import { EscalationStepsService } from './escalation-steps.service.js';

const RESOURCE = 'escalation_steps';

/**
 * `/projects/{project_id}/escalation_chains/{id}/escalation_steps`, its own token scope
 * resource. Members need alerts read, create, update or delete; tokens read, write or manage.
 * A chain of another project answers 404 like an unknown one.
 */
@ApiTags('alerting')
@Controller('projects/:project_id/escalation_chains/:id/escalation_steps')
@RequiresCapability('alerts')
export class EscalationStepsController {
  constructor(private readonly steps: EscalationStepsService) {}

  @Get()
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal, @Id('id') chainId: string) {
    return this.steps.list(principal.projectId!, chainId);
  }

  @Post()
  @Authenticated({ scope: 'project', permission: 'alerts:create', scopeResource: RESOURCE })
  create(
    @CurrentPrincipal() principal: Principal,
    @Id('id') chainId: string,
    @Body() body: CreateStepBody,
  ) {
    return this.steps.create(principal.projectId!, chainId, body);
  }

  @Get(':step_id')
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(
    @CurrentPrincipal() principal: Principal,
    @Id('id') chainId: string,
    @Id('step_id') id: string,
  ) {
    return this.steps.show(principal.projectId!, chainId, id);
  }

  @Patch(':step_id')
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: RESOURCE })
  update(
    @CurrentPrincipal() principal: Principal,
    @Id('id') chainId: string,
    @Id('step_id') id: string,
    @Body() body: UpdateStepBody,
  ) {
    return this.steps.update(principal.projectId!, chainId, id, body);
  }

  @Delete(':step_id')
  @HttpCode(204)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Id('id') chainId: string,
    @Id('step_id') id: string,
  ): Promise<void> {
    await this.steps.delete(principal.projectId!, chainId, id);
  }
}
