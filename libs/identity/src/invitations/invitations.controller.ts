import { Body, Controller, Get, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@platform/audit';
import { ApiData, ApiErrors, Public } from '@platform/core';
import type { Request } from 'express';
import { Authenticated } from '../access/authenticated.decorator.js';
import { CurrentPrincipal, organizationOf, type Principal } from '../access/principal.js';
import { RequestActor } from '../audit/request-actor.js';
import { notFound } from '../identity-exception.js';
import {
  InvitationAcceptedResponseDto,
  InvitationDeclinedResponseDto,
  InvitationDetailsResponseDto,
  InvitationResponseDto,
} from '../identity.openapi.js';
import { AcceptInvitationBody, CreateInvitationBody } from './invitations.dto.js';
import { InvitationsService } from './invitations.service.js';
import { InviteeSessions } from './invitee-session.js';

@ApiTags('invitations')
@Controller()
export class InvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly sessions: InviteeSessions,
  ) {}

  @Post('invitations')
  @ApiData(InvitationResponseDto, { status: 201, description: 'the invitation, sent by e-mail' })
  @ApiErrors(400, 401, 403, 404, 409, 422, 429)
  @Authenticated({ scope: 'organization', permission: 'members:create' })
  invite(
    @CurrentPrincipal() principal: Principal,
    @RequestActor() actor: AuditActor,
    @Body() body: CreateInvitationBody,
  ) {
    return this.invitations.invite(principal, actor, organizationOf(principal), body);
  }

  @Get('invite/:token')
  @ApiData(InvitationDetailsResponseDto, { description: 'the pending invitation' })
  @ApiErrors(404, 410)
  @Public()
  show(@Param('token') token: string) {
    return this.invitations.show(token);
  }

  @Get('invitations/details')
  @ApiData(InvitationDetailsResponseDto, { description: 'the pending invitation' })
  @ApiErrors(404, 410)
  @Public()
  details(@Query('token') token?: string) {
    if (!token) throw notFound('Invitation');
    return this.invitations.show(token);
  }

  /** Public: signing up through the invitation needs no session; signing in as the invitee does. */
  @Patch('invite/:token/accept')
  @ApiData(InvitationAcceptedResponseDto, { description: 'the membership the invitation gave' })
  @ApiErrors(400, 401, 403, 404, 409, 410, 422)
  @Public()
  async accept(
    @Req() request: Request,
    @Param('token') token: string,
    @Body() body: AcceptInvitationBody,
  ) {
    return this.invitations.accept(await this.sessions.resolve(request), token, body);
  }

  @Patch('invite/:token/decline')
  @ApiData(InvitationDeclinedResponseDto, { description: 'the invitation is declined' })
  @ApiErrors(404, 410)
  @Public()
  decline(@Param('token') token: string) {
    return this.invitations.decline(token);
  }
}
