import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Post,
  Put,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import {
  ApiData,
  ApiErrors,
  type ErrorDoc,
  invalidQueryDoc,
  invalidQueryParameter,
} from '@platform/core';
import type { Request, Response } from 'express';
import { Authenticated } from '../access/authenticated.decorator.js';
import { CurrentPrincipal, type Principal } from '../access/principal.js';
import { page, wantsPage } from '../auth/html-page.js';
import { IdentityErrorCode, IdentityException } from '../identity-exception.js';
import {
  ACCOUNT_SESSION_ERRORS,
  CSRF_ERROR,
  invalidDoc,
  rateLimitedDoc,
  VERIFICATION_TOKEN_ERROR,
} from '../identity-errors.openapi.js';
import {
  ChangeEmailBody,
  ConfirmEmailChangeBody,
  EmailChangedResponseDto,
  PendingEmailChangeResponseDto,
} from './email-change.dto.js';
import { EmailChangeService } from './email-change.service.js';

const ADDRESS_TAKEN: ErrorDoc = [409, 'login_taken', 'another account has this e-mail address'];

/**
 * The caller's own e-mail address (its login). It serves every organization of the account,
 * so only login sessions change it, as they change the password and the phone number; see
 * EmailChangeService for the flow.
 */
@ApiTags('accounts')
@Controller('accounts/me/email')
@Authenticated({ scope: 'account', interactiveOnly: true })
export class EmailChangeController {
  constructor(private readonly changes: EmailChangeService) {}

  /** Mails a confirmation link to the new address; the account's address changes once it is opened. */
  @Put()
  @HttpCode(202)
  @ApiData(PendingEmailChangeResponseDto, {
    status: 202,
    description: 'the link is on its way to the new address',
  })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    ADDRESS_TAKEN,
    invalidDoc(
      "email (an e-mail address other than the account's), or a current_password that is not the account's",
    ),
    rateLimitedDoc('e-mail address changes for this account or to this address'),
    [429, 'too_many_attempts', 'too many wrong passwords for this account; Retry-After says when'],
  )
  @ApiOperation({ summary: 'Change my e-mail address' })
  request(@CurrentPrincipal() principal: Principal, @Body() body: ChangeEmailBody) {
    return this.changes.request(principal, body.email, body.current_password);
  }

  @Post('verify')
  @HttpCode(200)
  @ApiData(EmailChangedResponseDto, { description: "the new address is the account's login" })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    VERIFICATION_TOKEN_ERROR,
    ADDRESS_TAKEN,
    invalidDoc('token'),
  )
  @ApiOperation({ summary: 'Confirm my new e-mail address' })
  confirm(@CurrentPrincipal() principal: Principal, @Body() body: ConfirmEmailChangeBody) {
    return this.changes.confirm(principal, body.token);
  }

  /**
   * The link in the confirmation e-mail, opened in a browser signed in to the account:
   * confirms like POST and answers a short page, or the JSON envelope to
   * `Accept: application/json`.
   */
  @Get('verify')
  @ApiData(EmailChangedResponseDto, {
    description: 'the new address is the login (a short HTML page unless JSON is accepted)',
  })
  @ApiQuery({ name: 'token', required: true, schema: { type: 'string', minLength: 1 } })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    VERIFICATION_TOKEN_ERROR,
    ADDRESS_TAKEN,
    invalidQueryDoc('`token` missing, empty or repeated'),
  )
  @ApiOperation({ summary: 'Confirmation link of a new e-mail address' })
  async confirmLink(
    @CurrentPrincipal() principal: Principal,
    @Query('token') token: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const html = wantsPage(request, true);
    const sent = typeof token === 'string' ? token : '';
    if (sent === '' && !html) throw invalidQueryParameter('token', 'token should not be empty');
    try {
      const changed = await this.changes.confirm(principal, sent);
      if (!html) return changed;
      return page(response, 200, {
        title: 'E-mail address changed',
        paragraphs: [`${changed.email} is the e-mail address and login of your account now.`],
      });
    } catch (error) {
      if (!html || !(error instanceof IdentityException)) throw error;
      return page(response, error.status, {
        title: 'This link does not work',
        paragraphs: [
          error.code === IdentityErrorCode.LoginTaken
            ? 'Another account has this e-mail address now.'
            : 'The link is unknown, was already used, was replaced by a newer one or has expired.',
          'Your account keeps its current e-mail address.',
        ],
      });
    }
  }

  @Delete('pending')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the pending change is cancelled; its link stops working' })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS, CSRF_ERROR, [
    404,
    'not_found',
    'no e-mail address change is pending',
  ])
  @ApiOperation({ summary: 'Cancel my pending e-mail address change' })
  async cancel(@CurrentPrincipal() principal: Principal): Promise<void> {
    await this.changes.cancel(principal.account.id);
  }
}
