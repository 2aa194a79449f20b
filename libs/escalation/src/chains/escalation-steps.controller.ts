import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import {
  ApiData,
  ApiIdParam,
  ApiProjectErrors,
  ApiProjectParam,
  ApiProjectWriteErrors,
  invalid,
  notFound,
} from '@platform/oncall';
import { EscalationStepsService } from './escalation-steps.service.js';
import { CreateStepBody, UpdateStepBody } from './escalation-steps.dto.js';
import { EscalationStep } from './chains.openapi.js';

const RESOURCE = 'escalation_steps';
const CHAIN_404 = notFound('no escalation chain of this project has this id');
const STEP_404 = notFound('no escalation chain of this project has this id or it has no such step');
const TARGET_RULES =
  "target_type unknown; the target field its type needs missing (target_roster_id for roster_on_call, roster and phone_contacts, target_member_id for member, target_role for role) or another type's field sent; target_roster_id not a roster of this project; target_member_id not an account of the organization; channels empty, repeated or unknown, or other than phone and sms for phone_contacts; delay_seconds outside 0..86400; position out of range";

/**
 * `/projects/{project_id}/escalation_chains/{id}/escalation_steps`, its own token scope
 * resource. Members need alerts read, create, update or delete; tokens read, write or manage.
 * A chain of another project answers 404 like an unknown one.
 */
@ApiTags('escalation')
@ApiProjectParam()
@ApiIdParam('id', 'the chain')
@Controller('projects/:project_id/escalation_chains/:id/escalation_steps')
@RequiresCapability('alerts')
export class EscalationStepsController {
  constructor(private readonly steps: EscalationStepsService) {}

  @Get()
  @ApiOperation({
    summary: 'List the steps of an escalation chain',
    description:
      'In order (position, 0-based and dense). Members: alerts read; tokens: escalation_steps:read.',
  })
  @ApiData(EscalationStep, { list: true, description: 'the steps in order' })
  @ApiProjectErrors(CHAIN_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal, @Id('id') chainId: string) {
    return this.steps.list(principal.projectId!, chainId);
  }

  @Post()
  @ApiOperation({
    summary: 'Add a step to an escalation chain',
    description:
      'A step waits delay_seconds after the previous one was due (after the escalation opened, for the first), then pages its target by every channel listed: in_app (a notification), email (with a signed acknowledgement link), phone (a call answered with 1 to acknowledge), sms (with a reply code). Appended, or inserted at position with the steps at and after it moving down; a chain holds at most 20 steps. Members: alerts create; tokens: escalation_steps:write.',
  })
  @ApiData(EscalationStep, { status: 201, description: 'the new step' })
  @ApiProjectWriteErrors(CHAIN_404, invalid(`the chain already holds 20 steps; ${TARGET_RULES}`))
  @Authenticated({ scope: 'project', permission: 'alerts:create', scopeResource: RESOURCE })
  create(
    @CurrentPrincipal() principal: Principal,
    @Id('id') chainId: string,
    @Body() body: CreateStepBody,
  ) {
    return this.steps.create(principal.projectId!, chainId, body);
  }

  @Get(':step_id')
  @ApiOperation({
    summary: 'Show an escalation step',
    description: 'Members: alerts read; tokens: escalation_steps:read.',
  })
  @ApiIdParam('step_id', 'the step')
  @ApiData(EscalationStep, { description: 'the step' })
  @ApiProjectErrors(STEP_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(
    @CurrentPrincipal() principal: Principal,
    @Id('id') chainId: string,
    @Id('step_id') id: string,
  ) {
    return this.steps.show(principal.projectId!, chainId, id);
  }

  @Patch(':step_id')
  @ApiOperation({
    summary: 'Update an escalation step',
    description:
      'Changes the fields sent; omitted fields stay. A new target_type clears the stored target fields of the old one; a new position moves the step, the steps in between shifting by one. Running escalations keep their snapshot. Members: alerts update; tokens: escalation_steps:write.',
  })
  @ApiIdParam('step_id', 'the step')
  @ApiData(EscalationStep, { description: 'the updated step' })
  @ApiProjectWriteErrors(STEP_404, invalid(TARGET_RULES))
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
  @ApiOperation({
    summary: 'Delete an escalation step',
    description:
      'The steps after it move up. Members: alerts delete; tokens: escalation_steps:manage.',
  })
  @ApiIdParam('step_id', 'the step')
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiProjectWriteErrors(STEP_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Id('id') chainId: string,
    @Id('step_id') id: string,
  ): Promise<void> {
    await this.steps.delete(principal.projectId!, chainId, id);
  }
}
