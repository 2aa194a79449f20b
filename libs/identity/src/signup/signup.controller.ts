import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Ip,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiNoContentResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors, invalidQueryDoc, invalidQueryParameter, Public } from '@platform/core';
import type { Request, Response } from 'express';
import { page, wantsPage } from '../auth/html-page.js';
import { LoginService } from '../auth/login.service.js';
import { clearSession, presentedSessions, sendSession } from '../auth/session-cookies.js';
import { IdentityException, notFound } from '../identity-exception.js';
import {
  invalidDoc,
  rateLimitedDoc,
  VERIFICATION_TOKEN_ERROR,
} from '../identity-errors.openapi.js';
import {
  EmailVerifiedResponseDto,
  LegalDocumentResponseDto,
  MessageResponseDto,
  SessionResponseDto,
} from '../identity.openapi.js';
import { LegalRepository } from './legal.repository.js';
import { LoginBody, ResendVerificationBody, SignupBody, VerifyEmailBody } from './signup.dto.js';
import { SignupService } from './signup.service.js';

/** Public surface: legal documents, signup, e-mail verification, login and logout. */
@ApiTags('accounts')
@Public()
@Controller()
export class SignupController {
  constructor(
    private readonly signups: SignupService,
    private readonly logins: LoginService,
    private readonly legal: LegalRepository,
  ) {}

  @Get('legal/:doc_type')
  @ApiData(LegalDocumentResponseDto, { description: 'the current version of the document' })
  @ApiErrors([404, 'not_found', 'no legal document has this type'])
  async legalDocument(@Param('doc_type') docType: string): Promise<LegalDocumentResponseDto> {
    const document = await this.legal.currentOf(docType);
    if (!document) throw notFound('Legal document');
    return {
      doc_type: document.docType,
      version: document.version,
      title: document.title,
      content: document.content,
      content_hash: document.contentHash,
      published_at: document.publishedAt,
    };
  }

  @Post('create-account')
  @ApiData(MessageResponseDto, { status: 201, description: 'the account exists, unverified' })
  @ApiErrors(
    [409, 'login_taken', 'an account with this login exists'],
    invalidDoc('login, name, password, password-confirm or organization_name'),
    [
      422,
      'legal_consent_invalid',
      'a consent pair is missing, names an old version or the wrong hash; no account is created',
    ],
    rateLimitedDoc('signups from this address'),
  )
  createAccount(@Body() body: SignupBody, @Ip() address: string | undefined) {
    return this.signups.signup(body, address ?? null);
  }

  @Post('verify-email')
  @HttpCode(200)
  @ApiData(EmailVerifiedResponseDto, { description: 'the address is verified' })
  @ApiErrors(VERIFICATION_TOKEN_ERROR, invalidDoc('token'))
  verifyEmail(@Body() body: VerifyEmailBody) {
    return this.signups.verify(body.token);
  }

  /**
   * The link in the verification e-mail: verifies like POST and answers a short page, or the
   * JSON envelope to `Accept: application/json`. A JSON client that sends no `token` (or an
   * empty or repeated one) gets 422 `validation_failed` naming it, as the POST does; a browser
   * gets the same "link does not work" page as for an unknown token.
   */
  @Get('verify-email')
  @ApiData(EmailVerifiedResponseDto, {
    description: 'the address is verified (a short HTML page unless JSON is accepted)',
  })
  @ApiQuery({ name: 'token', required: true, schema: { type: 'string', minLength: 1 } })
  @ApiErrors(VERIFICATION_TOKEN_ERROR, invalidQueryDoc('`token` missing, empty or repeated'))
  async verifyEmailLink(
    @Query('token') token: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const html = wantsPage(request, true);
    const sent = typeof token === 'string' ? token : '';
    if (sent === '' && !html) throw invalidQueryParameter('token', 'token should not be empty');
    try {
      const verified = await this.signups.verify(sent);
      if (!html) return verified;
      return page(response, 200, {
        title: 'E-mail address verified',
        paragraphs: ['Your e-mail address is verified. You can log in now.'],
      });
    } catch (error) {
      if (!html || !(error instanceof IdentityException)) throw error;
      return page(response, error.status, {
        title: 'This link does not work',
        paragraphs: [
          'The verification link is unknown, was already used or has expired.',
          'If your address is verified already, just log in; otherwise ask for a new link.',
        ],
      });
    }
  }

  @Post('resend-verification')
  @HttpCode(202)
  @ApiData(MessageResponseDto, {
    status: 202,
    description: 'the same answer whether or not the login exists',
  })
  @ApiErrors(
    invalidDoc('login (an e-mail address)'),
    rateLimitedDoc('verification e-mails for this login or from this address'),
  )
  resendVerification(@Body() body: ResendVerificationBody, @Ip() address: string | undefined) {
    return this.signups.resend(body.login, address ?? null);
  }

  /** The JWT goes out in the Authorization header; browsers also get the session and CSRF cookies. */
  @Post('login')
  @HttpCode(200)
  @ApiData(SessionResponseDto, {
    description: 'the session; the JWT is in the Authorization header',
  })
  @ApiErrors(
    [401, 'invalid_credentials', 'an unknown login or a wrong password, alike'],
    [403, 'email_not_verified', 'the right password of a login not verified yet'],
    invalidDoc('login or password'),
    [
      429,
      'too_many_attempts',
      'too many failed logins of this login or from this address; Retry-After says when',
    ],
  )
  async login(
    @Body() body: LoginBody,
    @Ip() address: string | undefined,
    @Headers('user-agent') userAgent: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SessionResponseDto> {
    const { account, token, expiresAt } = await this.logins.login(
      body.login,
      body.password,
      address ?? null,
      userAgent ?? null,
    );
    sendSession(response, token);
    return {
      account_id: account.id,
      login: account.login,
      name: account.name,
      expires_at: expiresAt,
    };
  }

  /**
   * Ends the session the request presents (its JWT and cookie are refused from then on, on
   * every replica; other sessions of the account stay) and clears the cookies. Answers 204
   * also without a valid session, so a browser can always clear its cookies.
   */
  @Post('logout')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the session ended and the cookies are cleared' })
  async logout(@Req() request: Request, @Res({ passthrough: true }) response: Response) {
    await this.logins.logout(presentedSessions(request));
    clearSession(response);
  }
}
