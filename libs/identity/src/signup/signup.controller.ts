import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Public } from '@platform/core';
import { serialize } from 'cookie';
import type { Response } from 'express';
import { CSRF_COOKIE, SESSION_COOKIE } from '../access/credentials.js';
import { LoginService } from '../auth/login.service.js';
import { randomSecret } from '../auth/secrets.js';
import { SESSION_TTL_SECONDS } from '../auth/session-tokens.js';
import { notFound } from '../identity-exception.js';
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
  async legalDocument(@Param('doc_type') docType: string) {
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
  createAccount(@Body() body: SignupBody) {
    return this.signups.signup(body);
  }

  @Post('verify-email')
  @HttpCode(200)
  verifyEmail(@Body() body: VerifyEmailBody) {
    return this.signups.verify(body.token);
  }

  @Post('resend-verification')
  @HttpCode(202)
  resendVerification(@Body() body: ResendVerificationBody) {
    return this.signups.resend(body.login);
  }

  /** The JWT goes out in the Authorization header; browsers also get the session and CSRF cookies. */
  @Post('login')
  @HttpCode(200)
  async login(@Body() body: LoginBody, @Res({ passthrough: true }) response: Response) {
    const { account, token, expiresAt } = await this.logins.login(body.login, body.password);
    const cookie = {
      path: '/',
      secure: true,
      sameSite: 'lax' as const,
      maxAge: SESSION_TTL_SECONDS,
    };
    response.setHeader('Authorization', `Bearer ${token}`);
    response.setHeader('Access-Control-Expose-Headers', 'Authorization');
    response.setHeader('Set-Cookie', [
      serialize(SESSION_COOKIE, token, { ...cookie, httpOnly: true }),
      serialize(CSRF_COOKIE, randomSecret('', 24), cookie),
    ]);
    response.setHeader('Cache-Control', 'no-store');
    return {
      account_id: account.id,
      login: account.login,
      name: account.name,
      expires_at: expiresAt,
    };
  }

  @Post('logout')
  @HttpCode(204)
  logout(@Res({ passthrough: true }) response: Response): void {
    const expired = { path: '/', secure: true, sameSite: 'lax' as const, expires: new Date(0) };
    response.setHeader('Set-Cookie', [
      serialize(SESSION_COOKIE, '', { ...expired, httpOnly: true }),
      serialize(CSRF_COOKIE, '', expired),
    ]);
  }
}
