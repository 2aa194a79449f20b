import { Body, Controller, Delete, HttpCode, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { ApiData, ApiErrors } from '@platform/core';
import { Authenticated, CurrentPrincipal, type Principal } from '@platform/identity';
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
  @ApiErrors(400, 401, 403, 422, 429, 503)
  update(@CurrentPrincipal() principal: Principal, @Body() body: SetPhoneBody) {
    return this.verification.request(principal.account.id, body.phone_number);
  }

  @Post('verify')
  @HttpCode(200)
  @ApiData(PhoneVerifiedResponseDto, { description: "the number is the account's" })
  @ApiErrors(400, 401, 403, 404, 422, 429)
  verify(@CurrentPrincipal() principal: Principal, @Body() body: VerifyPhoneBody) {
    return this.verification.verify(principal.account.id, body.code);
  }

  @Delete()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the account has no phone number' })
  @ApiErrors(401, 403)
  async remove(@CurrentPrincipal() principal: Principal): Promise<void> {
    await this.verification.remove(principal.account.id);
  }
}
