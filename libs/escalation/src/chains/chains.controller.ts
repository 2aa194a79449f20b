import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { CloneChainBody, CreateChainBody, UpdateChainBody } from './chains.dto.js';
import { ChainsService } from './chains.service.js';

const RESOURCE = 'escalation_chains';

/**
 * `/projects/{project_id}/escalation_chains`, its own token scope resource. Members need the
 * alerts category: read to list, show and resolve targets; update to change a chain; delete to
 * create, clone or delete one (the spec reserves creating and deleting chains to that level).
 * Tokens need `escalation_chains:read` for GET, `write` to create or update, `manage` to delete
 * or clone.
 */
@ApiTags('alerting')
@Controller('projects/:project_id/escalation_chains')
@RequiresCapability('alerts')
export class ChainsController {
  constructor(private readonly chains: ChainsService) {}

  @Get()
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal) {
    return this.chains.list(principal.projectId!);
  }

  @Post()
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
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.chains.show(principal.projectId!, id);
  }

  @Patch(':id')
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
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(@CurrentPrincipal() principal: Principal, @Id('id') id: string): Promise<void> {
    await this.chains.delete(principal.projectId!, id);
  }

  @Post(':id/clone')
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  clone(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: CloneChainBody,
  ) {
    return this.chains.clone(principal.projectId!, id, body);
  }

  @Get(':id/resolved_targets')
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  resolvedTargets(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.chains.resolvedTargets(principal.projectId!, id);
  }
}
