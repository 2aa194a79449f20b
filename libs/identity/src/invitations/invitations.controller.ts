import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@platform/audit';
import { Public } from '@platform/core';
import { Authenticated } from '../access/authenticated.decorator.js';
import { CurrentPrincipal, organizationOf, type Principal } from '../access/principal.js';
import { RequestActor } from '../audit/request-actor.js';
import { notFound } from '../identity-exception.js';
import { AcceptInvitationBody, CreateInvitationBody } from './invitations.dto.js';
import { InvitationsService } from './invitations.service.js';

@ApiTags('invitations')
@Controller()
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post('invitations')
  @Authenticated({ scope: 'organization', permission: 'members:create' })
  invite(
    @CurrentPrincipal() principal: Principal,
    @RequestActor() actor: AuditActor,
    @Body() body: CreateInvitationBody,
  ) {
    return this.invitations.invite(principal, actor, organizationOf(principal), body);
  }

  @Get('invite/:token')
  @Public()
  show(@Param('token') token: string) {
    return this.invitations.show(token);
  }

  @Get('invitations/details')
  @Public()
  details(@Query('token') token?: string) {
    if (!token) throw notFound('Invitation');
    return this.invitations.show(token);
  }

  @Patch('invite/:token/accept')
  @Public()
  accept(@Param('token') token: string, @Body() body: AcceptInvitationBody) {
    return this.invitations.accept(token, body);
  }

  @Patch('invite/:token/decline')
  @Public()
  decline(@Param('token') token: string) {
    return this.invitations.decline(token);
  }
}
