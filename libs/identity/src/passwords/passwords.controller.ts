import { Body, Controller, Get, HttpCode, Ip, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, Public } from '@platform/core';
import type { Request, Response } from 'express';
import { Authenticated } from '../access/authenticated.decorator.js';
import { CurrentPrincipal, type Principal } from '../access/principal.js';
import { escapeHtml, page, wantsPage } from '../auth/html-page.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../auth/passwords.js';
import { sendSession } from '../auth/session-cookies.js';
import { IdentityException } from '../identity-exception.js';
import {
  ACCOUNT_SESSION_ERRORS,
  CSRF_ERROR,
  invalidDoc,
  rateLimitedDoc,
} from '../identity-errors.openapi.js';
import { MessageResponseDto, SessionResponseDto } from '../identity.openapi.js';
import { PasswordChangeService } from './password-change.service.js';
import { PasswordResetService } from './password-reset.service.js';
import {
  ChangePasswordBody,
  ConfirmPasswordResetBody,
  PasswordResetBody,
} from './passwords.dto.js';

/** The form the reset e-mail's link opens; it posts to /password-reset/confirm. */
function resetForm(token: string): string {
  const field = (name: string, label: string) =>
    `<label for="${name}">${label}</label><input id="${name}" name="${name}" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}">`;
  return `<form method="post" action="password-reset/confirm">
<input type="hidden" name="token" value="${escapeHtml(token)}">
${field('password', 'New password')}
${field('password-confirm', 'New password again')}
<button type="submit">Set the new password</button>
</form>`;
}

@ApiTags('accounts')
@Controller()
export class PasswordsController {
  constructor(
    private readonly changes: PasswordChangeService,
    private readonly resets: PasswordResetService,
  ) {}

  /**
   * Changes the password (login sessions only): every other session of the account ends; this
   * one continues with the fresh JWT and cookies of the answer, as a login hands out.
   */
  @Post('accounts/me/password')
  @HttpCode(200)
  @ApiData(SessionResponseDto, {
    description: 'the fresh session; the JWT is in the Authorization header',
  })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    invalidDoc("password, password-confirm, or a current_password that is not the account's"),
    [429, 'too_many_attempts', 'too many wrong passwords for this account; Retry-After says when'],
  )
  @Authenticated({ scope: 'account', interactiveOnly: true })
  @ApiOperation({ summary: 'Change my password' })
  async change(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChangePasswordBody,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SessionResponseDto> {
    const { account, token, expiresAt } = await this.changes.change(
      principal,
      body.current_password,
      body.password,
    );
    sendSession(response, token);
    return {
      account_id: account.id,
      login: account.login,
      name: account.name,
      expires_at: expiresAt,
    };
  }

  /** Always 202 with the same body: whether the login exists is not told. */
  @Public()
  @Post('password-reset')
  @HttpCode(202)
  @ApiData(MessageResponseDto, {
    status: 202,
    description: 'the same answer whether or not the login exists',
  })
  @ApiErrors(
    invalidDoc('login'),
    rateLimitedDoc('reset requests for this login or from this address'),
  )
  requestReset(@Body() body: PasswordResetBody, @Ip() address: string | undefined) {
    return this.resets.request(body.login, address ?? null);
  }

  /**
   * The page the reset e-mail's link opens: a form for the new password. It is only ever a
   * page for a browser, so a missing or malformed `token` is not refused here: the form
   * carries it and its post answers 422 (`validation_failed` or `invalid_reset_token`).
   */
  @Public()
  @Get('password-reset')
  @ApiQuery({
    name: 'token',
    required: false,
    schema: { type: 'string' },
    description: "the reset link's token, carried by the form; checked when the form is posted",
  })
  @ApiOkResponse({
    description: 'an HTML form for the new password',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiOperation({ summary: 'Password reset page' })
  resetPage(@Query('token') token: unknown, @Res({ passthrough: true }) response: Response) {
    return page(response, 200, {
      title: 'Choose a new password',
      paragraphs: [
        `At least ${MIN_PASSWORD_LENGTH} characters. Every session of your account ends once it is set.`,
      ],
      formHtml: resetForm(typeof token === 'string' ? token : ''),
    });
  }

  /** JSON for API clients; the reset page's form post (which prefers HTML) gets a page. */
  @Public()
  @Post('password-reset/confirm')
  @HttpCode(200)
  @ApiData(MessageResponseDto, {
    description: 'the password is changed (a short HTML page to the form post)',
  })
  @ApiErrors(
    [410, 'reset_token_used', 'the reset link was used already'],
    [410, 'reset_token_expired', 'the reset link is older than an hour'],
    [422, 'invalid_reset_token', 'the reset link is unknown or was replaced by a newer one'],
    invalidDoc('token, password or password-confirm'),
  )
  async confirmReset(
    @Body() body: ConfirmPasswordResetBody,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const html = wantsPage(request, false);
    try {
      const done = await this.resets.confirm(body.token, body.password);
      if (!html) return done;
      return page(response, 200, { title: 'Password changed', paragraphs: [done.success] });
    } catch (error) {
      if (!html || !(error instanceof IdentityException)) throw error;
      return page(response, error.status, {
        title: 'This link does not work',
        paragraphs: [error.message, 'Ask for a new link to reset your password.'],
      });
    }
  }
}
