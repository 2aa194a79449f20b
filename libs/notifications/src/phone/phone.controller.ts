import { Body, Controller, Delete, HttpCode, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors } from '@platform/core';
import {
  ACCOUNT_SESSION_ERRORS,
  Authenticated,
  CSRF_ERROR,
  CurrentPrincipal,
  invalidDoc,
  type Principal,
  rateLimitedDoc,
} from '@platform/identity';
import {
  PhoneVerificationResponseDto,
  PhoneVerifiedResponseDto,
} from '../notifications.openapi.js';
import { SetPhoneBody, VerifyPhoneBody } from './phone.dto.js';
import { PhoneVerificationService } from './phone-verification.service.js';

/**
 * The caller's own phone number, used for phone and SMS notifications once verified. It serves
 * every organization of the account, so only login sessions change it: a static token acts only
 * inside its own organization.
 */
@ApiTags('accounts')
@Controller('accounts/me/phone')
@Authenticated({ scope: 'account', interactiveOnly: true })
export class AccountPhoneController {
  constructor(private readonly verification: PhoneVerificationService) {}

  /** Texts a 6-digit code to the number; the account's number changes once it is verified. */
  @Put()
  @HttpCode(202)
  @ApiData(PhoneVerificationResponseDto, { status: 202, description: 'the code is sent' })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    invalidDoc('phone_number (E.164)'),
    rateLimitedDoc('codes for this account or to this number'),
    [
      503,
      'phone_provider_not_configured',
      'no SMS provider is configured, so no code could arrive',
    ],
  )
  update(@CurrentPrincipal() principal: Principal, @Body() body: SetPhoneBody) {
    return this.verification.request(principal.account.id, body.phone_number);
  }

  @Post('verify')
  @HttpCode(200)
  @ApiData(PhoneVerifiedResponseDto, { description: "the number is the account's" })
  @ApiErrors(
    ...ACCOUNT_SESSION_ERRORS,
    CSRF_ERROR,
    [404, 'not_found', 'no phone verification is pending: set a phone number first'],
    [422, 'invalid_code', 'the code does not match; `details.attempts_left` says how many remain'],
    [
      422,
      'verification_expired',
      'the code expired or its attempts are used up: set the number again for a new one',
    ],
    invalidDoc('code'),
  )
  verify(@CurrentPrincipal() principal: Principal, @Body() body: VerifyPhoneBody) {
    return this.verification.verify(principal.account.id, body.code);
  }

  @Delete()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the account has no phone number' })
  @ApiErrors(...ACCOUNT_SESSION_ERRORS, CSRF_ERROR)
  async remove(@CurrentPrincipal() principal: Principal): Promise<void> {
    await this.verification.remove(principal.account.id);
  }
}
