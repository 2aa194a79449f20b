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
import { CloneChainBody, CreateChainBody, UpdateChainBody } from './chains.dto.js';
import {
  EscalationChain,
  RESOLVED_RECIPIENT_MODELS,
  ResolvedStepTargets,
} from './chains.openapi.js';
import { ChainsService } from './chains.service.js';

const RESOURCE = 'escalation_chains';
const CHAIN_404 = notFound('no escalation chain of this project has this id');
const CHAIN_422 = invalid(
  'a name that is blank or longer than 200, a description longer than 2000, re_escalation_after outside 60..604800, or repeats outside 0..10',
);

/**
 * `/projects/{project_id}/escalation_chains`, its own token scope resource. Members need the
 * alerts category: read to list, show and resolve targets; update to change a chain; delete to
 * create, clone or delete one (the spec reserves creating and deleting chains to that level).
 * Tokens need `escalation_chains:read` for GET, `write` to create or update, `manage` to delete
 * or clone.
 */
@ApiTags('escalation')
@ApiProjectParam()
@Controller('projects/:project_id/escalation_chains')
@RequiresCapability('alerts')
export class ChainsController {
  constructor(private readonly chains: ChainsService) {}

  @Get()
  @ApiOperation({
    summary: 'List escalation chains',
    description:
      'Every chain of the project, by name then id, each with its steps in order. Members: alerts read; tokens: escalation_chains:read.',
  })
  @ApiData(EscalationChain, { list: true, description: 'the chains' })
  @ApiProjectErrors(notFound())
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal) {
    return this.chains.list(principal.projectId!);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an escalation chain',
    description:
      "A chain (a GoAlert escalation policy, a Grafana OnCall escalation chain) pages its steps in order once an alert route's match opens an escalation, then starts over repeats more times before it is exhausted; with re_escalation_after an acknowledged escalation restarts from step 1 after that many seconds if the alert still fires. It starts without steps. Members: alerts delete; tokens: escalation_chains:write.",
  })
  @ApiData(EscalationChain, { status: 201, description: 'the new chain' })
  @ApiProjectWriteErrors(notFound(), CHAIN_422)
  @Authenticated({
    scope: 'project',
    permission: 'alerts:delete',
    scopeResource: RESOURCE,
    scopeLevel: 'create',
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateChainBody) {
    return this.chains.create(principal.projectId!, body);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Show an escalation chain',
    description:
      'The chain with its steps in order. Members: alerts read; tokens: escalation_chains:read.',
  })
  @ApiIdParam('id', 'the chain')
  @ApiData(EscalationChain, { description: 'the chain' })
  @ApiProjectErrors(CHAIN_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.chains.show(principal.projectId!, id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update an escalation chain',
    description:
      'Changes the fields sent; omitted fields stay, null clears description and re_escalation_after. Escalations already running keep the snapshot taken when they opened. Members: alerts update; tokens: escalation_chains:write.',
  })
  @ApiIdParam('id', 'the chain')
  @ApiData(EscalationChain, { description: 'the updated chain' })
  @ApiProjectWriteErrors(CHAIN_404, CHAIN_422)
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: RESOURCE })
  update(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: UpdateChainBody,
  ) {
    return this.chains.update(principal.projectId!, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an escalation chain',
    description:
      'Deletes the chain and its steps; routes that referenced it stay with escalation_chain_id null, and running escalations go on with their snapshot. Members: alerts delete; tokens: escalation_chains:manage.',
  })
  @ApiIdParam('id', 'the chain')
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiProjectWriteErrors(CHAIN_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(@CurrentPrincipal() principal: Principal, @Id('id') id: string): Promise<void> {
    await this.chains.delete(principal.projectId!, id);
  }

  @Post(':id/clone')
  @ApiOperation({
    summary: 'Clone an escalation chain',
    description:
      'Copies the chain and every step (targets, channels, delays, order) under "<name> (copy)" unless a name is given; the copy is independent of the original. Members: alerts delete; tokens: escalation_chains:manage.',
  })
  @ApiIdParam('id', 'the chain to copy')
  @ApiData(EscalationChain, { status: 201, description: 'the copy' })
  @ApiProjectWriteErrors(CHAIN_404, invalid('a name that is blank or longer than 200'))
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  clone(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: CloneChainBody,
  ) {
    return this.chains.clone(principal.projectId!, id, body);
  }

  @Get(':id/resolved_targets')
  @ApiOperation({
    summary: 'Who each step of a chain would page now',
    description:
      'Per step in order, the recipients it would page at this moment: roster_on_call the on-call account (override, rotation, absent members skipped, everyone absent: the scheduled one), roster every member, member that account, role and org_admins the organization members with that role. Accounts appear once per step and only while they hold a membership in the organization, by id and name; phone contacts by label, never by number. A deleted roster or member resolves to nobody. Members: alerts read; tokens: escalation_chains:read.',
  })
  @ApiIdParam('id', 'the chain')
  @ApiData(ResolvedStepTargets, {
    list: true,
    description: 'one entry per step, in order',
    extraModels: RESOLVED_RECIPIENT_MODELS,
  })
  @ApiProjectErrors(CHAIN_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  resolvedTargets(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.chains.resolvedTargets(principal.projectId!, id);
  }
}
