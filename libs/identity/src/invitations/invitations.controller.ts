import { Body, Controller, Get, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@platform/audit';
import { ApiData, ApiErrors, type ErrorDoc, invalidQueryDoc, Public } from '@platform/core';
import type { Request } from 'express';
import { Authenticated } from '../access/authenticated.decorator.js';
import { CurrentPrincipal, organizationOf, type Principal } from '../access/principal.js';
import { RequestActor } from '../audit/request-actor.js';
import {
  CSRF_ERROR,
  INTERACTIVE_ONLY_ERROR,
  invalidDoc,
  ORGANIZATION_ACCESS_ERRORS,
  rateLimitedDoc,
} from '../identity-errors.openapi.js';
import {
  InvitationAcceptedResponseDto,
  InvitationDeclinedResponseDto,
  InvitationDetailsResponseDto,
  InvitationResponseDto,
} from '../identity.openapi.js';
import {
  AcceptInvitationBody,
  CreateInvitationBody,
  InvitationDetailsQuery,
} from './invitations.dto.js';
import { InvitationsService } from './invitations.service.js';
import { InviteeSessions } from './invitee-session.js';

/** The token of an invitation e-mail that names no pending invitation. */
const INVITATION_TOKEN_ERRORS: readonly ErrorDoc[] = [
  [404, 'not_found', 'no invitation has this token'],
  [410, 'invitation_used', 'the invitation was accepted or declined already'],
  [410, 'invitation_expired', 'the invitation is older than its validity'],
];

@ApiTags('invitations')
@Controller()
export class InvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly sessions: InviteeSessions,
  ) {}

  @Post('invitations')
  @ApiData(InvitationResponseDto, { status: 201, description: 'the invitation, sent by e-mail' })
  @ApiErrors(
    ...ORGANIZATION_ACCESS_ERRORS,
    CSRF_ERROR,
    [403, 'forbidden', 'an admin invitation from someone who is no organization admin'],
    [403, 'role_ceiling', 'the role holds a permission level the caller lacks'],
    [409, 'already_member', 'the address is a member of the organization already'],
    invalidDoc('email or role'),
    rateLimitedDoc('invitations of this organization or to this address'),
  )
  @Authenticated({ scope: 'organization', permission: 'members:create' })
  @ApiOperation({ summary: 'Invite to an organization' })
  invite(
    @CurrentPrincipal() principal: Principal,
    @RequestActor() actor: AuditActor,
    @Body() body: CreateInvitationBody,
  ) {
    return this.invitations.invite(principal, actor, organizationOf(principal), body);
  }

  @Get('invite/:token')
  @ApiData(InvitationDetailsResponseDto, { description: 'the pending invitation' })
  @ApiErrors(...INVITATION_TOKEN_ERRORS)
  @Public()
  show(@Param('token') token: string) {
    return this.invitations.show(token);
  }

  /** A missing, empty or repeated `token` answers 422 naming it; an unknown one 404. */
  @Get('invitations/details')
  @ApiData(InvitationDetailsResponseDto, { description: 'the pending invitation' })
  @ApiErrors(...INVITATION_TOKEN_ERRORS, invalidQueryDoc('`token` missing, empty or repeated'))
  @Public()
  @ApiOperation({ summary: 'Show an invitation by token' })
  details(@Query() query: InvitationDetailsQuery) {
    return this.invitations.show(query.token);
  }

  /** Public: signing up through the invitation needs no session; signing in as the invitee does. */
  @Patch('invite/:token/accept')
  @ApiData(InvitationAcceptedResponseDto, { description: 'the membership the invitation gave' })
  @ApiErrors(
    [
      401,
      'unauthorized',
      'an invalid or expired session, or none while a verified account holds the address',
    ],
    INTERACTIVE_ONLY_ERROR,
    CSRF_ERROR,
    [403, 'invitation_email_mismatch', 'the session is not of the invited address'],
    ...INVITATION_TOKEN_ERRORS,
    [409, 'login_taken', 'an account with the address was created at the same moment'],
    invalidDoc('name, password or password-confirm, required without a session'),
  )
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
  @ApiErrors(...INVITATION_TOKEN_ERRORS)
  @Public()
  decline(@Param('token') token: string) {
    return this.invitations.decline(token);
  }
}
