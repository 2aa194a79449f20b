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
} from '../alerts-api.openapi.js';
import { RosterContactsService } from './roster-contacts.service.js';
import { CreatePhoneContactBody, UpdatePhoneContactBody } from './rosters.dto.js';
import { OnCallRosterPhoneContact } from './rosters.openapi.js';

const RESOURCE = 'on_call_roster_phone_contacts';
const ROSTER_404 = notFound('no on-call roster of this project has this id');
const CONTACT_404 = notFound(
  'no on-call roster of this project has this id or it has no such contact',
);
const CONTACT_422 = invalid(
  'a label that is blank, too long or already used on this roster, or a phone_number that is not E.164',
);

/**
 * `/projects/{project_id}/on_call_rosters/{id}/on_call_roster_phone_contacts`, scope resource
 * `on_call_roster_phone_contacts`: alerts read to list and show, create, update, delete
 * (tokens: read, write, write, manage).
 */
@ApiTags('escalation')
@ApiProjectParam()
@ApiIdParam('id', 'the roster')
@Controller('projects/:project_id/on_call_rosters/:id/on_call_roster_phone_contacts')
@RequiresCapability('alerts')
export class RosterContactsController {
  constructor(private readonly contacts: RosterContactsService) {}

  @Get()
  @ApiOperation({
    summary: 'List the phone contacts of an on-call roster',
    description:
      'External numbers (a NOC hotline, a vendor) that phone_contacts steps call or text, by label. Members: alerts read; tokens: on_call_roster_phone_contacts:read.',
  })
  @ApiData(OnCallRosterPhoneContact, { list: true, description: 'the contacts by label' })
  @ApiProjectErrors(ROSTER_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  list(@CurrentPrincipal() principal: Principal, @Id('id') id: string) {
    return this.contacts.list(principal.projectId!, id);
  }

  @Post()
  @ApiOperation({
    summary: 'Add a phone contact to an on-call roster',
    description:
      'A label unique on the roster and an E.164 number. A contact is reached by phone and SMS only and acknowledges as {label}; its number never appears in acknowledged_by or resolved_targets. Members: alerts create; tokens: on_call_roster_phone_contacts:write.',
  })
  @ApiData(OnCallRosterPhoneContact, { status: 201, description: 'the new contact' })
  @ApiProjectWriteErrors(ROSTER_404, CONTACT_422)
  @Authenticated({ scope: 'project', permission: 'alerts:create', scopeResource: RESOURCE })
  create(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Body() body: CreatePhoneContactBody,
  ) {
    return this.contacts.create(principal.projectId!, id, body);
  }

  @Get(':contact_id')
  @ApiOperation({
    summary: 'Show a phone contact',
    description: 'Members: alerts read; tokens: on_call_roster_phone_contacts:read.',
  })
  @ApiIdParam('contact_id', 'the phone contact')
  @ApiData(OnCallRosterPhoneContact, { description: 'the contact' })
  @ApiProjectErrors(CONTACT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:read', scopeResource: RESOURCE })
  show(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('contact_id') contactId: string,
  ) {
    return this.contacts.show(principal.projectId!, id, contactId);
  }

  @Patch(':contact_id')
  @ApiOperation({
    summary: 'Update a phone contact',
    description:
      'Changes the fields sent; omitted fields stay. Members: alerts update; tokens: on_call_roster_phone_contacts:write.',
  })
  @ApiIdParam('contact_id', 'the phone contact')
  @ApiData(OnCallRosterPhoneContact, { description: 'the updated contact' })
  @ApiProjectWriteErrors(CONTACT_404, CONTACT_422)
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
  @ApiOperation({
    summary: 'Delete a phone contact',
    description: 'Members: alerts delete; tokens: on_call_roster_phone_contacts:manage.',
  })
  @ApiIdParam('contact_id', 'the phone contact')
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiProjectWriteErrors(CONTACT_404)
  @Authenticated({ scope: 'project', permission: 'alerts:delete', scopeResource: RESOURCE })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Id('id') id: string,
    @Id('contact_id') contactId: string,
  ): Promise<void> {
    await this.contacts.delete(principal.projectId!, id, contactId);
  }
}
