import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '@platform/capabilities';
import { IdParam as Id } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
import { RosterContactsService } from './roster-contacts.service.js';
import { CreatePhoneContactBody, UpdatePhoneContactBody } from './rosters.dto.js';

const RESOURCE = 'on_call_roster_phone_contacts';

/**
 * `/projects/{project_id}/on_call_rosters/{id}/on_call_roster_phone_contacts`, scope resource
 * `on_call_roster_phone_contacts`: alerts read to list and show, create, update, delete
 * (tokens: read, write, write, manage).
 */
@ApiTags('escalation')
@Controller('projects/:project_id/on_call_rosters/:id/on_call_roster_phone_contacts')
@RequiresCapability('alerts')
export class RosterContactsController {
  constructor(private readonly contacts: RosterContactsService) {}

  @Get()
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.contacts.list(principal.projectId!, id);
  }

  @Post()
  @Authenticated({ scope: 'project', permission: 'alerts:create', scopeResource: RESOURCE })
  create(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: CreatePhoneContactBody,
  ) {
    return this.contacts.create(principal.projectId!, id, body);
  }

  @Get(':contact_id')
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('contact_id') contactId: string,
  ) {
    return this.contacts.show(principal.projectId!, id, contactId);
  }

  @Patch(':contact_id')
  @Authenticated({ scope: 'project', permission: 'alerts:update', scopeResource: RESOURCE })
  update(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('contact_id') contactId: string,
    @Body() body: UpdatePhoneContactBody,
  ) {
    return this.contacts.update(principal.projectId!, id, contactId, body);
  }

  @Delete(':contact_id')
  @HttpCode(204)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('contact_id') contactId: string,
  ): Promise<void> {
    await this.contacts.delete(principal.projectId!, id, contactId);
  }
}
